import Foundation

@testable import OpenCoreData

// The stress suite's oracle: under a lock every writer of both processes takes around "predict, save, check", it
// reads the whole store file (StressRawReader) and what the saving context will write, and predicts the outcome:
// a validation error (a deny rule), a merge error listing exactly the conflicting objects (the error policy), or the
// exact file afterwards — rows, versions, tag pairs and every bucket's queue order — under the merge policy.
//
// The outcomes it predicts (Apple documents the policies by property; these are the same rules for relationships
// and deletions, DEVIATIONS.md O19):
// - A conflict is an object the save updates or deletes whose row changed (or, for an update, vanished) since the
//   context read it. Objects the save inserts never conflict; a deletion of a row already gone is no conflict.
// - error: the save fails and writes nothing. The others resolve every conflict, and the save writes:
//   - an attribute of a conflicting object: overwrite the context's value, object trump the context's where it
//     changed it (the store's otherwise), store trump the store's where it changed it, rollback the store's; a to-one
//     the same, but overwrite as object trump (a value the context only read is not written back over the store's);
//   - a tag pair one of whose objects conflicts: the same rule by pair (a pair either side changed counts as
//     changed; overwrite as object trump); pairs of objects that do not conflict are the context's;
//   - a bucket's queue: the items whose `queuedIn` ends up there, in the context's order for a queue it changed
//     (store trump: in the store's order if the store changed it, rollback: always), the others after them; a queue
//     no save writes keeps its order keys;
//   - an object the context updated whose row was deleted elsewhere: gone, and the saved objects no longer point at
//     it; one it deleted whose row changed: rollback keeps the row, the others delete it and apply its delete rules
//     to the relationships the store has now (nullify, cascade; deny fails the save with the validation error).

/// What a context's save writes for one object, read from the object under the save lock.
struct ObjectChange {
    enum Kind { case insert, update, delete }
    let kind: Kind
    let key: StressKey
    let readVersion: Int64
    let committed: StressRow
    let current: StressRow
    /// The object's written to-many (Item.tags, Tag.items, Bucket.queue) by primary key, as read and as now; nil
    /// where the context has not realized it (then it is not written).
    let committedMembers: [Int64]?
    let currentMembers: [Int64]?
    let membersDirty: Bool
    /// Every to-many of the object as the context has it before the save (for failure messages).
    let lists: String
    /// The to-ones the context set by adding the object to its owner's list, read without it, while the to-one
    /// already named that owner (read before the list): a change all the same, which the policies treat as one.
    let toOnesSetThroughLists: Set<String>

    static let writtenToMany = ["Item": "tags", "Tag": "items", "Bucket": "queue"]

    init(_ object: NSManagedObject, kind: Kind) {
        self.kind = kind
        let entity = object.entity.name ?? ""
        guard let primaryKey = object.objectID.primaryKey else { preconditionFailure("\(object.objectID) has no primary key") }
        key = StressKey(entity: entity, primaryKey: primaryKey)
        readVersion = object.committedSnapshot?.version ?? 0
        committed = kind == .insert ? [:] : object.stressCommitted
        current = kind == .delete ? [:] : object.stressCurrent
        lists = object.layout.toManyRelationships.enumerated().map { slot, relationship in
            let realized: String
            if case .members(let members) = object.toManyValues[slot] { realized = "\(members.objects.compactMap(\.objectID.primaryKey))" } else { realized = "fault" }
            let committed = object.committedToMany[slot].map { "\($0.compactMap(\.primaryKey))" } ?? "-"
            return "\(relationship.name) \(realized) read \(committed)\(object.dirtyToManySlots.contains(slot) ? " dirty" : "")"
        }.joined(separator: ", ")
        toOnesSetThroughLists = kind != .update || entity != "Item" ? [] : Set(StressModel.toOneInverses.compactMap { key, inverse -> String? in
            // The owner's list changed here and has the object, read without it (a list the context did not change
            // may show the object only because its to-one, read earlier, still names the owner).
            guard let owner = object.value(forKey: key) as? NSManagedObject, case .toMany(let slot, _)? = owner.layout.slots[inverse],
                  owner.dirtyToManySlots.contains(slot), case .members(let members) = owner.toManyValues[slot], members.contains(object),
                  let read = owner.committedToMany[slot], !read.contains(object.objectID) else { return nil }
            return key
        })
        guard let name = Self.writtenToMany[entity], case .toMany(let slot, _)? = object.layout.slots[name],
              case .members(let members) = object.toManyValues[slot]
        else {
            committedMembers = nil
            currentMembers = nil
            membersDirty = false
            return
        }
        committedMembers = kind == .insert ? [] : object.committedToMany[slot]?.compactMap(\.primaryKey)
        // An item's tags keep a deleted tag the list still shows: the pair stands on the item's side (a tag read before
        // another context paired them does not list the item, so deleting it removed nothing), and the tag's deny
        // rule, applied again to the store's pairs when the deletion conflicts, sees it.
        currentMembers = members.objects.filter { !$0.isDeleted || entity == "Item" }.compactMap(\.objectID.primaryKey)
        membersDirty = kind == .insert || object.dirtyToManySlots.contains(slot)
    }
}

/// The oracle's prediction of one save.
struct SaveOracle {
    enum Outcome: Equatable {
        /// A deny rule refuses a deletion (`NSValidationRelationshipDeniedDeleteError`); nothing is written.
        case denied
        /// The error policy's merge error with these conflicts; nothing is written.
        case conflicts(Set<StressKey>)
        /// The file afterwards (rows the save does not touch included).
        case saved(FileState)
    }

    let policy: StressPolicy
    let file: FileState
    let changes: [StressKey: ObjectChange]
    /// Whether a tag the context deletes still has items in the context's view (its deny rule refuses it).
    let deniedInView: Bool

    init(policy: StressPolicy, file: FileState, changes: [ObjectChange], deniedInView: Bool) {
        self.policy = policy
        self.file = file
        self.changes = Dictionary(changes.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        self.deniedInView = deniedInView
    }

    /// The objects the save updates or deletes whose row changed or vanished since the context read them.
    var conflicts: Set<StressKey> {
        Set(changes.values.filter { change in
            guard change.kind != .insert else { return false }
            guard let row = file.rows[change.key] else { return change.kind == .update }
            return row.version != change.readVersion
        }.map(\.key))
    }

    func predict() -> Outcome {
        if deniedInView { return .denied }
        let conflicts = self.conflicts
        if policy == .error && !conflicts.isEmpty { return .conflicts(conflicts) }
        let gone = conflicts.filter { file.rows[$0] == nil }
        let conflicting = conflicts.subtracting(gone)
        var result = file
        var written = Set<StressKey>()

        // Deletions: the context's, and the rules of those in conflict applied to the store's relationships now.
        var deleted = Set<StressKey>()
        var reapplied = Set<StressKey>()
        for change in changes.values where change.kind == .delete && file.rows[change.key] != nil {
            if conflicting.contains(change.key) {
                if policy == .rollback { continue }
                reapplied.insert(change.key)
            }
            deleted.insert(change.key)
        }

        // Attributes and to-ones of the objects written.
        var draggedOwners = Set<StressKey>()
        for change in changes.values where change.kind != .delete && !gone.contains(change.key) {
            if conflicting.contains(change.key) && policy == .rollback { continue }
            var values = resolved(change, conflicting: conflicting.contains(change.key))
            if conflicting.contains(change.key), let stored = file.rows[change.key]?.values {
                // A to-one the context's value wins over one the store changed to: the bucket the store has the
                // object in loses it, and is written with it (its version moves).
                for (key, entity) in StressModel.toOneKeys where values[key] != stored[key] {
                    if case .integer(let owner)? = stored[key] { draggedOwners.insert(StressKey(entity: entity, primaryKey: owner)) }
                }
            }
            for (key, _) in StressModel.toOneKeys {
                if case .integer(let destination)? = values[key], gone.contains(StressKey(entity: "Bucket", primaryKey: destination)) {
                    values[key] = .null
                }
            }
            result.rows[change.key] = StoredRow(version: 0, values: values)
            written.insert(change.key)
            if change.kind == .insert && change.key.entity == "Item" { result.orderKeys[change.key.primaryKey] = .some(nil) }
        }
        for key in reapplied where key.entity == "Bucket" {
            let bucket = StressValue.integer(key.primaryKey)
            for (item, row) in result.rows where item.entity == "Item" && !deleted.contains(item) {
                if row.values["bucket"] == bucket {
                    result.rows[item]?.values["bucket"] = .null
                    written.insert(item)
                }
                if row.values["queuedIn"] == bucket {
                    // Cascade: the item goes, and the bucket it is in (its nullify rule) is written.
                    deleted.insert(item)
                    if case .integer(let owner)? = row.values["bucket"], owner != key.primaryKey {
                        draggedOwners.insert(StressKey(entity: "Bucket", primaryKey: owner))
                    }
                }
            }
        }
        // A rolled-back item keeps the store's to-ones, another policy's the store's where the store wins; one that
        // points at a bucket this save deletes gets that bucket's rule: the queue's cascade deletes it, the items'
        // nullify clears its bucket.
        for key in conflicting where key.entity == "Item" && !deleted.contains(key) {
            guard let row = result.rows[key] else { continue }
            if case .integer(let bucket)? = row.values["queuedIn"], deleted.contains(StressKey(entity: "Bucket", primaryKey: bucket)) {
                deleted.insert(key)
                // Its own nullify rule takes it out of the bucket the store has it in, which is written (its
                // version moves with its membership, as for a cascade above).
                if case .integer(let owner)? = row.values["bucket"], owner != bucket {
                    draggedOwners.insert(StressKey(entity: "Bucket", primaryKey: owner))
                }
                continue
            }
            if case .integer(let bucket)? = row.values["bucket"], deleted.contains(StressKey(entity: "Bucket", primaryKey: bucket)) {
                result.rows[key]?.values["bucket"] = .null
                written.insert(key)
            }
        }
        for key in deleted {
            result.rows[key] = nil
            if key.entity == "Item" { result.orderKeys[key.primaryKey] = nil }
        }
        written.formUnion(draggedOwners.filter { result.rows[$0] != nil })
        written.subtract(deleted)

        result.pairs = pairs(conflicting: conflicting, alive: { result.rows[$0] != nil })
        for key in reapplied where key.entity == "Tag" && result.pairs.contains(where: { $0.tag == key.primaryKey }) {
            // Rows the context never saw still pair the tag with a live item: its deny rule refuses the deletion.
            return .denied
        }
        result.pairs = result.pairs.filter { result.rows[StressKey(entity: "Tag", primaryKey: $0.tag)] != nil }

        // A rolled-back bucket (an update reverted, or a deletion undone) whose items change with this save all the
        // same (items not in conflict moved in or out, or deleted) is written with the store's values.
        if policy == .rollback {
            for bucket in conflicting where bucket.entity == "Bucket" && result.rows[bucket] != nil {
                guard let change = changes[bucket], change.kind != .insert else { continue }
                let itemsChanged = result.items("bucket", of: bucket.primaryKey) != file.items("bucket", of: bucket.primaryKey)
                let queueChanged = Set(result.items("queuedIn", of: bucket.primaryKey)) != Set(file.items("queuedIn", of: bucket.primaryKey))
                if itemsChanged || queueChanged { written.insert(bucket) }
            }
        }

        // Queues.
        for (bucket, _) in result.rows where bucket.entity == "Bucket" {
            if let order = writtenQueue(bucket, conflicting: conflicting, result: result) {
                for (position, item) in order.enumerated() { result.orderKeys[item] = Int64(position + 2) * 1024 }
                if !written.contains(bucket) {
                    // A rolled-back bucket whose queue gained items from this save is written for their order, with
                    // the store's values.
                    written.insert(bucket)
                }
            }
        }

        for key in written {
            result.rows[key]?.version = (file.rows[key]?.version ?? 0) + 1
        }
        return .saved(result)
    }

    /// The values a written object gets: the context's, or for a conflicting one the policy's mix with the store's.
    private func resolved(_ change: ObjectChange, conflicting: Bool) -> StressRow {
        guard conflicting, let stored = file.rows[change.key]?.values else { return change.current }
        var values = StressRow()
        for (key, current) in change.current {
            let committed = change.committed[key], storedValue = stored[key]
            let changedHere = current != committed || change.toOnesSetThroughLists.contains(key)
            // Overwrite writes every attribute; a to-one as object trump does (the context's where it changed it).
            let relationship = StressModel.toOneKeys[key] != nil
            switch policy {
            case .overwrite where relationship: values[key] = changedHere ? current : storedValue
            case .error, .overwrite: values[key] = current
            case .rollback: values[key] = storedValue
            case .objectTrump: values[key] = changedHere ? current : storedValue
            case .storeTrump: values[key] = storedValue != committed ? storedValue : current
            }
        }
        return values
    }

    /// The tag pairs after the save.
    private func pairs(conflicting: Set<StressKey>, alive: (StressKey) -> Bool) -> Set<TagPair> {
        // Each written side's pairs, as read and as now. A deleted object's list is a side too: items the context
        // took out of a tag before deleting it (what the deny rule asks for) are pairs it changed, which the policy
        // resolves like any other (an item's pairs end with its row anyway).
        var sides: [TagPair: [(committed: Bool, current: Bool, key: StressKey)]] = [:]
        for change in changes.values where change.membersDirty && (change.key.entity == "Item" || change.key.entity == "Tag") {
            guard let current = change.currentMembers else { continue }
            let committed = Set(change.committedMembers ?? []), now = Set(current)
            for other in committed.union(now) {
                let pair = change.key.entity == "Item" ? TagPair(item: change.key.primaryKey, tag: other) : TagPair(item: other, tag: change.key.primaryKey)
                sides[pair, default: []].append((committed.contains(other), now.contains(other), change.key))
            }
        }
        var result = Set<TagPair>()
        for pair in file.pairs.union(sides.keys) {
            let item = StressKey(entity: "Item", primaryKey: pair.item), tag = StressKey(entity: "Tag", primaryKey: pair.tag)
            guard alive(item) else { continue }
            let stored = file.pairs.contains(pair)
            var present = stored
            if let pairSides = sides[pair] {
                let changedSides = pairSides.filter { $0.committed != $0.current }
                let changed = !changedSides.isEmpty
                let current = changed ? changedSides[0].current : pairSides[0].current
                let committed = changed ? changedSides[0].committed : pairSides[0].committed
                if conflicting.contains(item) || conflicting.contains(tag) {
                    switch policy {
                    case .error: present = current
                    case .rollback: present = stored
                    case .objectTrump, .overwrite: present = changed ? current : stored
                    case .storeTrump: present = stored != committed ? stored : current
                    }
                } else {
                    present = changed ? current : stored
                }
            }
            if present { result.insert(pair) }
        }
        return result
    }

    /// The order a save writes for a bucket's queue, or nil when it writes none (the items keep their order keys).
    private func writtenQueue(_ bucket: StressKey, conflicting: Set<StressKey>, result: FileState) -> [Int64]? {
        let members = result.items("queuedIn", of: bucket.primaryKey)
        let stored = file.queue(of: bucket.primaryKey).filter(members.contains)
        guard let change = changes[bucket], change.kind != .delete, change.membersDirty, let current = change.currentMembers else { return nil }
        let memberSet = Set(members)
        func ordered(first: [Int64], then second: [Int64]) -> [Int64] {
            var order = first.filter(memberSet.contains)
            order += second.filter { memberSet.contains($0) && !order.contains($0) }
            order += members.filter { !order.contains($0) }
            return order
        }
        guard conflicting.contains(bucket) else { return ordered(first: current, then: stored) }
        switch policy {
        case .error, .overwrite, .objectTrump:
            return ordered(first: current, then: stored)
        case .storeTrump:
            let storeChanged = file.queue(of: bucket.primaryKey) != (change.committedMembers ?? [])
            return storeChanged ? ordered(first: stored, then: current) : ordered(first: current, then: stored)
        case .rollback:
            // Reverted; written only if items this save keeps joined or left it.
            guard Set(members) != Set(file.queue(of: bucket.primaryKey)) else { return nil }
            return ordered(first: stored, then: current)
        }
    }
}
