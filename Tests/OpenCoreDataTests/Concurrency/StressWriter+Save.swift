import Foundation

@testable import OpenCoreData

extension StressWriter {
    /// Predicts, saves and checks, under the lock: the oracle (StressOracle.swift) reads the file and what the
    /// context will write, and the file after the save must be exactly its prediction.
    func lockedSave() {
        lock.withLock {
            context.processPendingChanges()
            guard context.hasChanges else { return }
            for object in context.updatedObjects.union(context.insertedObjects) where !object.isDeleted {
                object.setValue(nextStamp(), forKey: "stamp")
            }
            context.processPendingChanges()
            do {
                try context.obtainPermanentIDs(for: Array(context.insertedObjects))
            } catch let error as NSError {
                return recordOtherError(error)
            }
            let changes = context.insertedObjects.filter { !$0.isDeleted }.map { ObjectChange($0, kind: .insert) }
                + context.updatedObjects.filter { !$0.isInserted && !$0.isDeleted }.map { ObjectChange($0, kind: .update) }
                + context.deletedObjects.filter { !$0.isInserted }.map { ObjectChange($0, kind: .delete) }
            let deniedInView = context.deletedObjects.contains { tag in
                tag.entity.name == "Tag" && ((tag.value(forKey: "items") as? NSSet)?.count ?? 0) > 0
            }
            let before = reader.fileState()
            let oracle = SaveOracle(policy: policy, file: before, changes: changes, deniedInView: deniedInView)
            let conflicts = oracle.conflicts
            checkCommittedMembers(changes, conflicts: conflicts, file: before)
            checkDeletedBucketItems(changes, conflicts: conflicts, file: before)
            if policy == .error { checkConflictsByStamp(changes, conflicts: conflicts, file: before) }
            let prediction = oracle.predict()
            if !deniedInView { report.predictedConflicts += conflicts.count }
            if prediction == .denied { report.predictedDenials += 1 }
            let saved: NSError?
            do {
                try context.save()
                saved = nil
            } catch let error as NSError {
                saved = error
            }
            let after = reader.fileState()
            let dangling = Self.danglingReferences(after).subtracting(Self.danglingReferences(before))
            if !dangling.isEmpty {
                fail("the save left references to rows that are not there: \(dangling.sorted().prefix(6)) [saved: \(changes.map { "\($0.key) \($0.kind) \($0.current)" }.joined(separator: ", "))] [conflicts \(oracle.conflicts.sorted())] [error \(saved.map { "\($0.code)" } ?? "none")]")
            }
            check(prediction, error: saved, before: before, after: after, changes: changes)
        }
    }

    /// An object the context read at the store's current version has read the store's members too: the members it
    /// committed are the file's (else a deletion would not nullify, a save would lose what it did not see).
    private func checkCommittedMembers(_ changes: [ObjectChange], conflicts: Set<StressKey>, file: FileState) {
        for change in changes where change.kind != .insert && !conflicts.contains(change.key) && file.rows[change.key] != nil {
            guard let committed = change.committedMembers else { continue }
            let stored: [Int64]
            switch change.key.entity {
            case "Item": stored = file.tags(of: change.key.primaryKey).sorted()
            case "Tag": stored = file.items(ofTag: change.key.primaryKey).sorted()
            default: stored = file.queue(of: change.key.primaryKey)
            }
            // Members whose rows are gone do not count: a deletion under the no-action rule (Item.tags) leaves the
            // other side's version as it was.
            let memberEntity = change.key.entity == "Tag" || change.key.entity == "Bucket" ? "Item" : "Tag"
            // Only members it misses matter (a deletion would not apply its rule to them, a save would not see
            // them); members that left without this object's version moving are its stale read, which a save of
            // it meets as the policy says.
            let same = Set(stored).isSubset(of: Set(committed.filter { file.rows[StressKey(entity: memberEntity, primaryKey: $0)] != nil }))
            if !same { fail("\(change.key) (\(change.kind)) read version \(change.readVersion), the file's, but committed members \(committed), the file has \(stored)") }
        }
        for object in context.deletedObjects where object.entity.name == "Bucket" && !object.isInserted {
            guard let primaryKey = object.objectID.primaryKey, !conflicts.contains(StressKey(entity: "Bucket", primaryKey: primaryKey)),
                  case .toMany(let slot, _)? = object.layout.slots["items"], let committed = object.committedToMany[slot]
            else { continue }
            let stored = file.items("bucket", of: primaryKey)
            if !Set(stored).isSubset(of: Set(committed.compactMap(\.primaryKey))) {
                fail("deleted Bucket \(primaryKey) read at the file's version has committed items \(committed.compactMap(\.primaryKey).sorted()), the file has \(stored)")
            }
        }
    }

    /// Every realized to-many of a registered object read at the file's version has the file's members committed.
    func checkRegisteredCommittedMembers(_ file: FileState, label: String) {
        for object in context.registeredObjects where !object.isFault && !object.isDeleted && !object.isInserted {
            guard let primaryKey = object.objectID.primaryKey, let entity = object.entity.name,
                  let row = file.rows[StressKey(entity: entity, primaryKey: primaryKey)], row.version == object.committedSnapshot?.version
            else { continue }
            let keys = entity == "Bucket" ? ["items", "queue"] : entity == "Item" ? ["tags"] : ["items"]
            for key in keys {
                guard case .toMany(let slot, _)? = object.layout.slots[key], case .members = object.toManyValues[slot],
                      let committed = object.committedToMany[slot]
                else { continue }
                let stored: [Int64]
                switch (entity, key) {
                case ("Item", _): stored = file.tags(of: primaryKey).sorted()
                case ("Tag", _): stored = file.items(ofTag: primaryKey).sorted()
                case (_, "items"): stored = file.items("bucket", of: primaryKey)
                default: stored = file.queue(of: primaryKey)
                }
                let memberEntity = entity == "Item" ? "Tag" : "Item"
                if !Set(stored).isSubset(of: Set(committed.compactMap(\.primaryKey).filter { file.rows[StressKey(entity: memberEntity, primaryKey: $0)] != nil })) {
                    fail("\(label): \(entity) \(primaryKey).\(key) read at the file's version v\(row.version) has committed \(committed.compactMap(\.primaryKey)), the file has \(stored) (changed: \(object.hasChanges))")
                }
            }
        }
    }

    /// A bucket deleted without conflict: every item the file has in it is one the save writes (nullified, or moved
    /// elsewhere by the context), and no item the save writes still points at it (its delete rule reached them all).
    func checkDeletedBucketItems(_ changes: [ObjectChange], conflicts: Set<StressKey>, file: FileState) {
        let deleted = changes.filter { $0.kind == .delete && $0.key.entity == "Bucket" && !conflicts.contains($0.key) }.map { StressValue.integer($0.key.primaryKey) }
        // (An item in conflict may hold a stale to-one: resolution gives it the store's, and the deleted bucket's rule.)
        for change in changes where change.kind != .delete && change.key.entity == "Item" && !conflicts.contains(change.key) {
            for key in ["bucket", "queuedIn"] where change.current[key].map({ deleted.contains($0) }) == true {
                let bucket = context.registeredObjects.first { $0.entity.name == "Bucket" && change.current[key] == $0.objectID.primaryKey.map(StressValue.integer) }
                let item = context.registeredObjects.first { $0.entity.name == "Item" && $0.objectID.primaryKey == change.key.primaryKey }
                fail("\(change.key) (\(change.kind), read v\(change.readVersion), file \(file.rows[change.key].map(\.description) ?? "no row")) still has \(key) → deleted Bucket \(change.current[key]!) (read \(change.committed[key].map(\.description) ?? "-")): the item \(item.map(Self.describeLists) ?? "-"); the bucket \(bucket.map(Self.describeLists) ?? "-"), file \(file.items(key, of: bucket?.objectID.primaryKey ?? -1))")
            }
        }
        let written = Set(changes.map(\.key))
        for change in changes where change.kind == .delete && change.key.entity == "Bucket" && !conflicts.contains(change.key) {
            for item in file.items("bucket", of: change.key.primaryKey) + file.items("queuedIn", of: change.key.primaryKey)
            where !written.contains(StressKey(entity: "Item", primaryKey: item)) {
                let object = context.registeredObjects.first { $0.objectID.primaryKey == item && $0.entity.name == "Item" }
                let state = object.map { o in
                    "registered, fault \(o.isFault), changes \(o.hasChanges), bucket now \(o.isFault ? "-" : "\((o.primitiveValue(forKey: "bucket") as? NSManagedObject)?.objectID.primaryKey ?? -1)"), committed v\(o.committedSnapshot?.version ?? -1)"
                } ?? "not registered"
                let bucket = context.registeredObjects.first { $0.objectID.primaryKey == change.key.primaryKey && $0.entity.name == "Bucket" }
                let lists = ["items", "queue"].map { key -> String in
                    guard let bucket, case .toMany(let slot, _)? = bucket.layout.slots[key] else { return "\(key) ?" }
                    let realized: String
                    if case .members(let members) = bucket.toManyValues[slot] { realized = "\(members.objects.compactMap(\.objectID.primaryKey))" } else { realized = "fault" }
                    return "\(key) \(realized) committed \(bucket.committedToMany[slot].map { "\($0.compactMap(\.primaryKey))" } ?? "-")"
                }
                let queuedIn = object.flatMap { o in o.isFault ? nil : (o.primitiveValue(forKey: "queuedIn") as? NSManagedObject)?.objectID.primaryKey }
                fail("deleting Bucket \(change.key.primaryKey) leaves Item \(item) (file \(file.row("Item", item).map(\.description) ?? "-")) pointing at it: \(state), queuedIn now \(queuedIn ?? -1); the bucket's \(lists.joined(separator: "; "))")
            }
        }
    }

    /// Under the error policy, a conflict by version is a conflict by stamp: every commit writes a fresh stamp.
    private func checkConflictsByStamp(_ changes: [ObjectChange], conflicts: Set<StressKey>, file: FileState) {
        for change in changes where change.kind != .insert {
            guard let row = file.rows[change.key] else { continue }
            let byStamp = row.values["stamp"] != change.committed["stamp"]
            if byStamp != conflicts.contains(change.key) {
                fail("\(change.key): read version \(change.readVersion) with stamp \(change.committed["stamp"]!), file has \(row)")
            }
        }
    }

    private func check(_ prediction: SaveOracle.Outcome, error: NSError?, before: FileState, after: FileState, changes: [ObjectChange]) {
        switch (prediction, error) {
        case (.denied, let error?) where Self.isDenial(error):
            report.reportedDenials += 1
            report.failedSaves += 1
            expectUnchanged(before, after)
            context.rollback()
        case (.conflicts(let predicted), let error?) where error.code == NSManagedObjectMergeError:
            report.failedSaves += 1
            let list = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict] ?? []
            report.reportedConflicts += list.count
            let reported = Set(list.compactMap { conflict in
                conflict.sourceObject.objectID.primaryKey.map { StressKey(entity: conflict.sourceObject.entity.name ?? "", primaryKey: $0) }
            })
            if reported != predicted || list.count != predicted.count {
                fail("conflicts reported for \(reported.sorted()), the oracle expected \(predicted.sorted())")
            }
            for conflict in list {
                guard let key = conflict.sourceObject.objectID.primaryKey.map({ StressKey(entity: conflict.sourceObject.entity.name ?? "", primaryKey: $0) }),
                      let change = changes.first(where: { $0.key == key })
                else { continue }
                let stored = before.rows[key]?.version ?? 0
                if conflict.oldVersionNumber != Int(change.readVersion) || conflict.newVersionNumber != Int(stored) {
                    fail("\(key): conflict versions old \(conflict.oldVersionNumber)/new \(conflict.newVersionNumber), expected \(change.readVersion)/\(stored)")
                }
            }
            expectUnchanged(before, after)
            // Apple's advice for the error policy: the app decides; this one gives up its changes and goes on.
            context.rollback()
        case (.saved(let expected), nil):
            report.saves += 1
            if context.hasChanges { fail("changes remain after a successful save") }
            checkRegisteredCommittedMembers(after, label: "right after the save")
            compare(expected: expected, actual: after, before: before, changes: changes,
                    conflicts: SaveOracle(policy: policy, file: before, changes: changes, deniedInView: false).conflicts)
            recordCommits(changes, after: after)
            recordSavedIDs()
        case (_, let error?) where error.domain == NSCocoaErrorDomain && error.code == NSSQLiteError:
            recordOtherError(error)
        case (_, let error?):
            let details = ((error.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? [error]).map { detail in
                let object = detail.userInfo[NSValidationObjectErrorKey] as? NSManagedObject
                let value = detail.userInfo[NSValidationValueErrorKey] as? NSManagedObject
                return "\(object?.entity.name ?? "?") \(object?.objectID.primaryKey ?? -1).\(detail.userInfo[NSValidationKeyErrorKey] ?? "?") → \(value?.entity.name ?? "?") \(value?.objectID.primaryKey ?? -1) (temporary \(value?.objectID.isTemporaryID ?? false), inserted \(value?.isInserted ?? false), deleted \(value?.isDeleted ?? false), context \(value?.managedObjectContext == nil ? "none" : "some"), \(value.map(Self.describeLists) ?? "-"))"
            }
            fail("the save threw \(error.code) (\(error.localizedDescription)); the oracle predicted \(Self.describe(prediction)) [\(details.joined(separator: "; "))] [\(Self.describeMembers(changes, before: before, after: after))]")
            context.rollback()
        case (_, nil):
            report.saves += 1
            recordSavedIDs()
            fail("the save succeeded; the oracle predicted \(Self.describe(prediction)) [\(Self.describeMembers(changes, before: before, after: after))]")
        }
    }

    /// An object's fault state, changes and to-manys as the context has them (failure messages).
    static func describeLists(_ object: NSManagedObject) -> String {
        let lists = object.layout.toManyRelationships.enumerated().map { slot, relationship in
            let realized: String
            if case .members(let members) = object.toManyValues[slot] { realized = "\(members.objects.compactMap(\.objectID.primaryKey))" } else { realized = "fault" }
            return "\(relationship.name) \(realized) read \(object.committedToMany[slot].map { "\($0.compactMap(\.primaryKey))" } ?? "-")\(object.dirtyToManySlots.contains(slot) ? " dirty" : "")"
        }
        return "fault \(object.isFault) changes \(object.hasChanges) v\(object.committedSnapshot?.version ?? -1) \(lists.joined(separator: ", "))"
    }

    /// The saved items and tags with their tag pairs: as read, as now, in the file before and after (failure messages).
    private static func describeMembers(_ changes: [ObjectChange], before: FileState, after: FileState) -> String {
        changes.filter { $0.key.entity == "Tag" || $0.key.entity == "Item" }.map { change in
            let inFile = { (file: FileState) in change.key.entity == "Item" ? file.tags(of: change.key.primaryKey).sorted() : file.items(ofTag: change.key.primaryKey).sorted() }
            return "\(change.key) \(change.kind) read v\(change.readVersion) file v\(before.rows[change.key]?.version ?? -1) members read \(change.committedMembers.map { "\($0.sorted())" } ?? "-") now \(change.currentMembers.map { "\($0.sorted())" } ?? "-") file \(inFile(before)) after \(inFile(after))"
        }.joined(separator: "; ")
    }

    /// Foreign keys and tag pairs that name rows the file does not have.
    static func danglingReferences(_ file: FileState) -> Set<String> {
        var result = Set<String>()
        for (key, row) in file.rows {
            for (name, entity) in StressModel.toOneKeys {
                if case .integer(let destination)? = row.values[name], file.rows[StressKey(entity: entity, primaryKey: destination)] == nil {
                    result.insert("\(key).\(name) → \(entity) \(destination)")
                }
            }
        }
        for pair in file.pairs where file.row("Item", pair.item) == nil || file.row("Tag", pair.tag) == nil { result.insert("\(pair)") }
        return result
    }

    static func isDenial(_ error: NSError) -> Bool {
        if error.code == NSValidationRelationshipDeniedDeleteError { return true }
        guard error.code == NSValidationMultipleErrorsError, let details = error.userInfo[NSDetailedErrorsKey] as? [NSError] else { return false }
        return details.allSatisfy { $0.code == NSValidationRelationshipDeniedDeleteError }
    }

    private static func describe(_ outcome: SaveOracle.Outcome) -> String {
        switch outcome {
        case .denied: "a denied deletion"
        case .conflicts(let keys): "a merge error with \(keys.sorted())"
        case .saved: "success"
        }
    }

    /// A failed save writes nothing (rows other writers inserted meanwhile aside).
    private func expectUnchanged(_ before: FileState, _ after: FileState) {
        let differences = Self.differences(expected: before, actual: after, before: before)
        if !differences.isEmpty { fail("a failed save changed the file: \(differences.prefix(6).joined(separator: "; "))") }
    }

    private func compare(expected: FileState, actual: FileState, before: FileState, changes: [ObjectChange], conflicts: Set<StressKey>) {
        let differences = Self.differences(expected: expected, actual: actual, before: before)
        if !differences.isEmpty {
            let buckets = changes.filter { $0.key.entity == "Bucket" }.map { change in
                "\(change.key) \(change.kind) (\(change.lists)) dirty \(change.membersDirty) read \(change.committedMembers.map { "\($0)" } ?? "-") now \(change.currentMembers.map { "\($0)" } ?? "-") file had \(before.queue(of: change.key.primaryKey)) keys \(before.queue(of: change.key.primaryKey).map { before.orderKeys[$0].flatMap { $0 } ?? -1 })"
            }
            let others = changes.filter { $0.key.entity != "Bucket" }.map { change in
                // An item's to-ones: as read → as now (file: the store's before the save).
                let toOnes = change.key.entity != "Item" ? "" : " " + ["bucket", "queuedIn"].map { key in
                    "\(key) \(change.committed[key].map(\.description) ?? "-")→\(change.current[key].map(\.description) ?? "-") (file \(before.rows[change.key]?.values[key].map(\.description) ?? "no row"))"
                }.joined(separator: " ")
                return change.committedMembers == nil ? "\(change.key) \(change.kind)\(toOnes)"
                    : "\(change.key) \(change.kind)\(toOnes) dirty \(change.membersDirty) read \(change.committedMembers!.sorted()) now \((change.currentMembers ?? []).sorted()) file \(change.key.entity == "Item" ? before.tags(of: change.key.primaryKey).sorted() : before.items(ofTag: change.key.primaryKey).sorted())"
            }
            // Members a saved queue lists whose own change the save does not carry.
            let changedKeys = Set(changes.map(\.key))
            let unsaved = changes.filter { $0.key.entity == "Bucket" }.flatMap { change in
                (change.currentMembers ?? []).filter { !changedKeys.contains(StressKey(entity: "Item", primaryKey: $0)) && before.row("Item", $0)?.values["queuedIn"] != .integer(change.key.primaryKey) }.map { item in
                    let object = context.registeredObjects.first { $0.objectID.primaryKey == item && $0.entity.name == "Item" }
                    return "Item \(item) in \(change.key)'s queue: " + (object.map { o in
                        "fault \(o.isFault) changes \(o.hasChanges) updated \(o.isUpdated) deleted \(o.isDeleted) queuedIn now \(o.isFault ? "-" : "\((o.primitiveValue(forKey: "queuedIn") as? NSManagedObject)?.objectID.primaryKey ?? -1)") committed \(o.committedSnapshot.map { "v\($0.version)" } ?? "-")"
                    } ?? "not registered")
                }
            }
            let keys = expected.rows.keys.filter { $0.entity == "Bucket" }.map { bucket in
                "\(bucket.primaryKey): before \(before.queue(of: bucket.primaryKey).map { "\($0)@\(before.orderKeys[$0].flatMap { $0 } ?? -1)" }) after \(actual.queue(of: bucket.primaryKey).map { "\($0)@\(actual.orderKeys[$0].flatMap { $0 } ?? -1)" })"
            }
            fail("the file differs from the oracle's prediction (\(policy)): \(differences.prefix(8).joined(separator: "; ")) [saved buckets: \(buckets.joined(separator: "; "))] [others: \(others.joined(separator: ", "))] [queues: \(keys.joined(separator: "; "))] [conflicts \(conflicts.sorted())] [unsaved members: \(unsaved.joined(separator: "; "))]")
        }
    }

    /// Where `actual` differs from `expected`, leaving out rows neither `before` nor `expected` has (insertions other
    /// writers made meanwhile, without the lock: items in no bucket, queue or tag).
    static func differences(expected: FileState, actual: FileState, before: FileState) -> [String] {
        var result: [String] = []
        for key in Set(expected.rows.keys).union(actual.rows.keys).sorted() {
            let wanted = expected.rows[key], got = actual.rows[key]
            if wanted == nil && before.rows[key] == nil { continue }
            if wanted != got { result.append("\(key): file has \(got.map(\.description) ?? "no row"), expected \(wanted.map(\.description) ?? "no row")") }
        }
        let foreign = Set(actual.rows.keys).subtracting(expected.rows.keys).subtracting(before.rows.keys)
        let actualPairs = actual.pairs.filter { !foreign.contains(StressKey(entity: "Item", primaryKey: $0.item)) }
        if actualPairs != expected.pairs {
            result.append("tag pairs: extra \(actualPairs.subtracting(expected.pairs).sorted()), missing \(expected.pairs.subtracting(actualPairs).sorted())")
        }
        for bucket in expected.rows.keys where bucket.entity == "Bucket" {
            let wanted = expected.queue(of: bucket.primaryKey), got = actual.queue(of: bucket.primaryKey)
            if wanted != got { result.append("queue of \(bucket): file has \(got), expected \(wanted)") }
        }
        return result
    }

    /// Records each committed change of a row the save updated (the error policy's lost-update check) and the
    /// context's view of what it wrote: after a successful save it shows the file's values.
    private func recordCommits(_ changes: [ObjectChange], after: FileState) {
        for change in changes where change.kind == .update {
            guard let row = after.rows[change.key], case .integer(let read)? = change.committed["stamp"], case .integer(let new)? = row.values["stamp"],
                  read != new
            else { continue }
            report.commits.append(.init(entity: change.key.entity, primaryKey: change.key.primaryKey, readStamp: read, newStamp: new))
        }
        for object in context.registeredObjects where !object.isFault && !object.isDeleted {
            guard let primaryKey = object.objectID.primaryKey, let entity = object.entity.name,
                  let row = after.rows[StressKey(entity: entity, primaryKey: primaryKey)],
                  changes.contains(where: { $0.key == StressKey(entity: entity, primaryKey: primaryKey) })
            else { continue }
            if object.stressCurrent != row.values {
                fail("\(entity) \(primaryKey) shows \(object.stressCurrent) after the save, the file has \(row.values)")
            }
        }
    }
}
