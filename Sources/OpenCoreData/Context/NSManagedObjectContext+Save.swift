extension NSManagedObjectContext {
    /// Saves the context's changes: applies pending delete rules, calls `willSave()`, validates every changed
    /// object (throwing Core Data's validation errors, several at once as `NSValidationMultipleErrorsError` with
    /// `NSDetailedErrorsKey`), gives inserted objects permanent IDs, and writes everything to the stores in one
    /// transaction per store. Conflicts with changes saved meanwhile by others are resolved by `mergePolicy`.
    /// Metadata set on the coordinator's stores (`setMetadata(_:for:)`, `store.metadata`) is written too — also by a
    /// save with no changes, when the context's parent is the coordinator.
    ///
    /// For example:
    /// ```swift
    /// do {
    ///     try context.save()
    /// } catch let error as NSError where error.code == NSValidationMissingMandatoryPropertyError {
    ///     print(error.userInfo[NSValidationKeyErrorKey] ?? "")
    /// }
    /// ```
    public func save() throws {
        checkConfinement()
        // Saving always applies the pending delete rules, even when they are not applied at the end of events.
        propagateDeletes()
        processPendingChangesInternal()
        guard hasChanges else {
            // Metadata set on the coordinator's stores is written by any save, also one with nothing else to save.
            if _parent == nil, let coordinator = persistentStoreCoordinator { try coordinator.writePendingMetadata(for: self) }
            return
        }
        fireFaultedInsertions()
        postNotification(.NSManagedObjectContextWillSave)
        // The changed objects as they are now (the array holds copies of the sets): objects that willSave() changes
        // are not added.
        for changed in [insertedSet, updatedSet, deletedSet] {
            for object in changed { object.willSave() }
        }
        propagateDeletes()
        processPendingChangesInternal()
        try validateChanges()
        if let parent = _parent { return try saveToParent(parent) }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "This context has no persistent store coordinator, so it cannot save.")
        }
        try saveToStores(coordinator)
    }

    /// Runs every changed object's validation and throws the errors found.
    func validateChanges() throws {
        var errors: [NSError] = []
        for object in insertedSet where !object._isDeleted {
            collect(&errors) { try object.validateForInsert() }
            errors += danglingReferenceErrors(of: object)
        }
        for object in updatedSet where !object._isInserted && !object._isDeleted {
            collect(&errors) { try object.validateForUpdate() }
            errors += danglingReferenceErrors(of: object)
        }
        for object in deletedSet where !object._isInserted {
            collect(&errors) { try object.validateForDelete() }
        }
        if let error = ValidationErrors.combined(errors) { throw error }
    }

    /// Relationships of an object being saved that lead to an object that will never be in a store (inserted and
    /// deleted before any save, or taken out of the context): Apple's "Dangling reference to an invalid object."
    /// (`NSManagedObjectValidationError`).
    private func danglingReferenceErrors(of object: NSManagedObject) -> [NSError] {
        func isInvalid(_ destination: NSManagedObject) -> Bool {
            destination._context !== self || (destination._isInserted && destination._isDeleted)
        }
        var errors: [NSError] = []
        for (index, relationship) in object.layout.toOneRelationships.enumerated() where !relationship.isTransient {
            if index < object.toOneValues.count, case .object(let destination) = object.toOneValues[index], isInvalid(destination) {
                errors.append(ValidationErrors.make(NSManagedObjectValidationError, object: object, key: relationship.name, value: destination,
                                                    message: "Dangling reference to an invalid object."))
            }
        }
        for (index, relationship) in object.layout.toManyRelationships.enumerated() where !relationship.isTransient {
            guard index < object.toManyValues.count, case .members(let members) = object.toManyValues[index] else { continue }
            if let destination = members.objects.first(where: isInvalid) {
                errors.append(ValidationErrors.make(NSManagedObjectValidationError, object: object, key: relationship.name, value: destination,
                                                    message: "Dangling reference to an invalid object."))
            }
        }
        return errors
    }

    private func collect(_ errors: inout [NSError], _ body: () throws -> Void) {
        do { try body() } catch let error as NSError {
            if error.code == NSValidationMultipleErrorsError, let details = error.userInfo[NSDetailedErrorsKey] as? [NSError] {
                errors += details
            } else {
                errors.append(error)
            }
        }
    }

    private static func readOnlyStoreError(_ store: NSPersistentStore, _ object: NSManagedObject) -> NSError {
        CoreDataError.make(NSPersistentStoreSaveError, "The persistent store \(store.url?.path ?? store.identifier ?? "") is read-only",
                           userInfo: [NSAffectedStoresErrorKey: [store], NSAffectedObjectsErrorKey: [object]])
    }

    /// Writes the changes to the stores, resolving conflicts with the merge policy and retrying.
    private func saveToStores(_ coordinator: NSPersistentStoreCoordinator) throws {
        var attempts = 0
        // With several stores, a store that already applied its part keeps it when another store's part conflicts:
        // a retry after the merge policy resolved the conflict sends it nothing again.
        var committedStores = Set<ObjectIdentifier>()
        var changedByStores = Set<NSManagedObjectID>()
        while true {
            attempts += 1
            let inserted = insertedSet.filter { !$0._isDeleted }
            let updated = updatedSet.filter { !$0._isInserted && !$0._isDeleted }
            let deleted = deletedSet.filter { !$0._isInserted }
            // A read-only store refuses before anything is written (permanent IDs write the store's key counters).
            var destinations = DestinationStores(context: self, coordinator: coordinator)
            for object in inserted where object.objectID.isTemporaryID {
                if let store = destinations.store(for: object), store.isReadOnly { throw Self.readOnlyStoreError(store, object) }
            }
            try obtainPermanentIDs(for: inserted.filter { $0.objectID.isTemporaryID })
            try refuseCrossStoreRelationships(inserted + updated)
            var changesByStore: [ObjectIdentifier: (store: SnapshotStore, changes: StoreSaveChanges)] = [:]
            // The last object's store by its ID's store identity: finding the store (a weak load under a lock and a
            // dynamic cast) for each of 100,000 objects was 1.5 % of a save.
            var lastStore: (identity: ObjectIdentifier, store: SnapshotStore)?
            func add(_ object: NSManagedObject, _ edit: (inout StoreSaveChanges) -> Void) throws {
                let identity = object.objectID.storeIdentityKey
                let store: SnapshotStore
                if let lastStore, let identity, identity == lastStore.identity {
                    store = lastStore.store
                } else {
                    guard let found = coordinator.store(for: object.objectID) else {
                        throw CoreDataError.make(NSPersistentStoreSaveError, "No persistent store holds the entity \(object.entity.name ?? "?") (\(object.objectID))")
                    }
                    if found.isReadOnly { throw Self.readOnlyStoreError(found, object) }
                    store = found
                    lastStore = identity.map { ($0, found) }
                }
                let key = ObjectIdentifier(store)
                if changesByStore[key] == nil { changesByStore[key] = (store, StoreSaveChanges()) }
                edit(&changesByStore[key]!.changes)   // in place: copying the entry made a save quadratic
            }
            var newSnapshots: [(NSManagedObject, ObjectSnapshot)] = []
            for object in inserted {
                var snapshot = object.snapshotForSave()
                snapshot.version = 1
                newSnapshots.append((object, snapshot))
                try add(object) { $0.inserts.append(.init(objectID: object.objectID, snapshot: snapshot, toMany: object.toManyForSave(all: true))) }
            }
            for object in updated {
                let expected = object.committedSnapshot?.version ?? 0
                var snapshot = object.snapshotForSave()
                snapshot.version = expected + 1
                newSnapshots.append((object, snapshot))
                let toMany = object.toManyForSave(all: false)
                try add(object) {
                    $0.updates.append(.init(objectID: object.objectID, snapshot: snapshot, expectedVersion: expected, toMany: toMany,
                                            toManyChanges: toMany.isEmpty ? [:] : object.toManyChangesForSave(toMany)))
                }
            }
            for object in deleted where !object.objectID.isTemporaryID {
                try add(object) { $0.deletes.append(.init(objectID: object.objectID, expectedVersion: object.committedSnapshot?.version ?? 0)) }
            }
            do {
                try coordinator.withLock {
                    // In the order the stores were added, so that a save touching several stores is deterministic.
                    let order = coordinator.persistentStores.map(ObjectIdentifier.init)
                    let entries = changesByStore.sorted { (order.firstIndex(of: $0.key) ?? .max) < (order.firstIndex(of: $1.key) ?? .max) }
                    for (key, entry) in entries where !entry.changes.isEmpty && !committedStores.contains(key) {
                        let result = try coordinator.save(entry.changes, to: entry.store, for: storeWriteContext)
                        changedByStores.formUnion(result.objectsChangedByStore)
                        committedStores.insert(key)
                        for (oldID, newID) in result.movedObjectIDs {
                            if let object = registry[oldID] { reassign(object, to: newID) }
                        }
                    }
                }
            } catch let conflicts as StoreSaveConflicts {
                let found = mergeConflicts(for: conflicts)
                cacheStoredRows(of: conflicts, in: coordinator)
                guard attempts < 8 else { throw mergeError(found) }
                try policy().resolve(mergeConflicts: found)
                continue
            } catch let violation as StoreConstraintViolation {
                guard attempts < 8 else { throw CoreDataError.make(NSManagedObjectConstraintMergeError, "Uniqueness constraint conflicts could not be resolved") }
                try policy().resolve(constraintConflicts: [constraintConflict(for: violation)])
                processPendingChangesInternal()
                continue
            }
            // A context pinned to a query generation moves to the current one after it saved, as Apple documents.
            if !committedStores.isEmpty { advanceQueryGeneration() }
            didSave(inserted: inserted, updated: updated, deleted: deleted, snapshots: newSnapshots, coordinator: coordinator)
            refreshObjectsChangedByStores(changedByStores, coordinator: coordinator)
            // Metadata of the stores this save did not write to (those it wrote to have written theirs).
            try coordinator.writePendingMetadata(for: self)
            if InternalChecks.isEnabled { _checkInvariants(of: inserted + updated + deleted) }
            return
        }
    }

    /// The merge policy as an `NSMergePolicy`.
    func policy() -> NSMergePolicy {
        (_mergePolicy as? NSMergePolicy) ?? .error
    }

    /// Brings objects and caches up to date after a successful save and posts the save notifications.
    private func didSave(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject],
                         snapshots: [(NSManagedObject, ObjectSnapshot)], coordinator: NSPersistentStoreCoordinator) {
        coordinator.rowCache.apply(saved: snapshots.map { ($0.0.objectID, $0.1) }, deleted: deleted.map(\.objectID))
        for (object, snapshot) in snapshots {
            object.committedSnapshot = snapshot
            if object.layout.hasTransientAttributes {
                object.attributeValues = snapshot.attributes.enumerated().map { index, value in
                    object.layout.attributes[index].isTransient ? object.attributeValues[index] : value
                }
            } else {
                object.attributeValues = snapshot.attributes   // shared with the snapshot until changed
            }
            for (index, value) in object.toManyValues.enumerated() {
                if case .members(let members) = value { object.committedToMany[index] = members.objects.map(\.objectID) }
            }
            object.dirtyToManySlots = []
            object.transientsBeforeChanges = [:]
            object.lifeCycle.save()
        }
        noteUnregistered(deleted.map(\.objectID))
        // Deleted rows are in no to-many of the store any more (their join rows went with them): nor in this
        // context's realized ones — what the no-action rule, or a delete rule applied while resolving a conflict, left.
        leaveRealizedRelationships(deleted, toOnes: false)
        for object in deleted + insertedSet.filter(\._isDeleted) {
            registry[object.objectID] = nil
            object.lifeCycle.leaveContext()
            object._context = nil
        }
        let insertedObjects = Set(inserted), updatedObjects = Set(updated), deletedObjects = Set(deleted)
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        unpropagatedDeletes.removeAll()
        deletionsWithMergedRows.removeAll()
        // (Each array on its own: concatenating them copied 100,000 references per save.)
        for objects in [inserted, updated] { for object in objects { releaseIfUnchanged(object) } }
        for objects in [inserted, updated, deleted] { for object in objects { object.didSave() } }
        let tokens = tokensAfterSave(persistentStoreCoordinator)
        let info: [AnyHashable: Any] = [
            NSInsertedObjectsKey: insertedObjects, NSUpdatedObjectsKey: updatedObjects, NSDeletedObjectsKey: deletedObjects,
        ].merging(tokens) { value, _ in value }
        postNotification(.NSManagedObjectContextDidSave, userInfo: info)
        let idInfo: [AnyHashable: Any] = [
            NSInsertedObjectIDsKey: Set(inserted.map(\.objectID)), NSUpdatedObjectIDsKey: Set(updated.map(\.objectID)),
            NSDeletedObjectIDsKey: Set(deleted.map(\.objectID)),
        ].merging(tokens) { value, _ in value }
        postNotification(.NSManagedObjectContextDidSaveObjectIDs, userInfo: idInfo)
    }

    /// Reloads the objects whose values a store changed itself while saving (derived attributes).
    private func refreshObjectsChangedByStores(_ objectIDs: Set<NSManagedObjectID>, coordinator: NSPersistentStoreCoordinator) {
        guard !objectIDs.isEmpty else { return }
        coordinator.rowCache.remove(objectIDs)
        for objectID in objectIDs {
            guard let object = registry[objectID], !object._isFault else { continue }
            if object.hasChanges {
                refresh(object, mergeChanges: true)
            } else if let snapshot = try? snapshot(for: objectID) {
                object.applyKeepingTransients(snapshot)
                eventChanges.refreshed.insert(object)
            }
        }
        postObjectsDidChange()
    }

    /// Gives objects permanent IDs now (saving does it for every inserted object).
    ///
    /// For example:
    /// ```swift
    /// try context.obtainPermanentIDs(for: [mood])
    /// let stableID = mood.objectID   // no longer temporary
    /// ```
    public func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        checkConfinement()
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "This context has no persistent store coordinator.")
        }
        let temporary = objects.filter { $0.objectID.isTemporaryID }
        // By entity and destination store (several stores may hold an entity: `assign(_:to:)` chooses).
        var destinations = DestinationStores(context: self, coordinator: coordinator)
        let groups = Self.grouped(temporary) { EntityInStore(entity: ObjectIdentifier($0.entity), store: destinations.store(for: $0).map(ObjectIdentifier.init)) }
        for group in groups.sorted(by: { ($0[0].entity.name ?? "") < ($1[0].entity.name ?? "") }) {
            let entity = group[0].entity
            guard let store = destinations.store(for: group[0]) else {
                throw CoreDataError.make(NSPersistentStoreOperationError, "No persistent store holds the entity \(entity.name ?? "?")")
            }
            let ids = try coordinator.newObjectIDs(for: group, in: store)
            guard ids.count == group.count else {
                throw CoreDataError.make(NSPersistentStoreOperationError, "The store \(store.type) returned \(ids.count) permanent IDs for \(group.count) objects")
            }
            for (object, newID) in zip(group, ids) {
                let oldID = object.objectID
                if !storeAssignments.isEmpty { storeAssignments[oldID] = nil }
                reassign(object, to: newID)
                // Ancestors that received this object from a child save move it to the permanent ID too.
                if let parent = _parent { parent.performAndWait { parent.adoptPermanentID(newID, replacing: oldID) } }
            }
        }
    }

    /// `objects` grouped by `key`, in no particular order; one group without a dictionary when every key is the
    /// same (the usual save: `Dictionary(grouping:by:)` appended each object to a group array through a hash).
    private static func grouped(_ objects: [NSManagedObject], by key: (NSManagedObject) -> EntityInStore) -> [[NSManagedObject]] {
        let keys = objects.map(key)
        guard let first = keys.first else { return [] }
        if keys.allSatisfy({ $0 == first }) { return [objects] }
        var groups: [EntityInStore: [NSManagedObject]] = [:]
        for (object, key) in zip(objects, keys) { groups[key, default: []].append(object) }
        return Array(groups.values)
    }

    /// The key grouping objects for ``obtainPermanentIDs(for:)`` (a struct: an array key allocated per object).
    private struct EntityInStore: Hashable {
        let entity: ObjectIdentifier
        let store: ObjectIdentifier?
    }

    /// Moves an object to a new ID (temporary → permanent).
    func reassign(_ object: NSManagedObject, to newID: NSManagedObjectID) {
        if servesChildren && object.objectID.isTemporaryID { replacedTemporaryIDs[object.objectID] = newID }
        registry.removeValue(forKey: object.objectID)
        object._objectID = newID
        registry[newID] = object
        if case .reference = newID.key { noteRegistered([newID]) }
    }

    // MARK: Conflicts

    /// Apple's merge conflicts: the new version is the store's (0 when the row was deleted), the old one the
    /// version the context read; the cached snapshot is the coordinator's row cache, the persisted one the store's
    /// row (nil when the cache already holds it: a context-vs-cache conflict), the object snapshot the object's
    /// current values.
    private func mergeConflicts(for conflicts: StoreSaveConflicts) -> [NSMergeConflict] {
        let rowCache = persistentStoreCoordinator?.rowCache
        return conflicts.conflicts.compactMap { conflict in
            guard let object = registry[conflict.objectID] else { return nil }
            let cached = rowCache?.snapshot(for: conflict.objectID)
            // When the coordinator's cache already holds the store's version, the conflict is between the
            // context and the cache, and Apple reports no persisted snapshot.
            let againstCache = cached != nil && conflict.persisted != nil && cached?.version == conflict.persisted?.version
            let result = NSMergeConflict(
                source: object, newVersion: Int(conflict.persisted?.version ?? 0), oldVersion: Int(conflict.expectedVersion),
                cachedSnapshot: cached.map { SnapshotDictionaries.dictionary(from: $0, entity: object.entity) },
                persistedSnapshot: againstCache ? nil : conflict.persisted.map { SnapshotDictionaries.dictionary(from: $0, entity: object.entity) })
            result.objectSnapshot = SnapshotDictionaries.dictionary(from: object.snapshotForSave(), entity: object.entity)
            result.persistedRow = conflict.persisted
            return result
        }
    }

    private func mergeError(_ conflicts: [NSMergeConflict]) -> NSError {
        CoreDataError.make(NSManagedObjectMergeError, "Could not merge changes", userInfo: [NSPersistentStoreSaveConflictsErrorKey: conflicts])
    }

    /// After an optimistic-locking failure the coordinator's row cache holds the store's rows of the objects in
    /// conflict (a row deleted from the store leaves it), so that refreshing them — Apple's advice after such a
    /// failure — shows the store's values even with the default staleness interval.
    private func cacheStoredRows(of conflicts: StoreSaveConflicts, in coordinator: NSPersistentStoreCoordinator) {
        for conflict in conflicts.conflicts {
            if let persisted = conflict.persisted {
                coordinator.rowCache.store(persisted, for: conflict.objectID)
            } else {
                coordinator.rowCache.remove([conflict.objectID])
            }
        }
    }

    private func constraintConflict(for violation: StoreConstraintViolation) -> NSConstraintConflict {
        let objects = violation.objectIDs.compactMap { registry[$0] }
        let database = violation.existing.map { object(with: $0) }
        let databaseSnapshot = violation.existing.flatMap { try? snapshot(for: $0) }.map { SnapshotDictionaries.dictionary(from: $0, entity: violation.existing!.entity) }
        let conflict = NSConstraintConflict(
            constraint: violation.constraint, database: database, databaseSnapshot: databaseSnapshot, conflicting: objects,
            conflictingSnapshots: objects.map { SnapshotDictionaries.dictionary(from: $0.snapshotForSave(), entity: $0.entity) as [AnyHashable: Any] })
        conflict.involvesUpdates = objects.contains { !$0._isInserted }
        return conflict
    }

    /// Replaces an object's values with `snapshot` and forgets its changes.
    func revert(_ object: NSManagedObject, to snapshot: ObjectSnapshot) {
        object.applyKeepingTransients(snapshot)
        object.lifeCycle.discardUpdate()
        object.dirtyToManySlots = []
        updatedSet.remove(object)
        releaseIfUnchanged(object)
        eventChanges.refreshed.insert(object)
        object.awake(fromSnapshotEvents: .mergePolicy)
    }

    /// Removes an inserted object that a constraint merge folded into another one.
    func discardInsertedDuplicate(_ object: NSManagedObject) {
        for case let relationship as NSRelationshipDescription in object.entity.properties {
            object.setValue(nil, forKey: relationship.name)
        }
        insertedSet.remove(object)
        updatedSet.remove(object)
        registry[object.objectID] = nil
        object.lifeCycle.leaveContext()
        object._context = nil
        eventChanges.invalidated.insert(object)
    }
}

/// Snapshots as the dictionaries Apple's merge conflicts carry (attributes and to-one IDs).
enum SnapshotDictionaries {
    static func dictionary(from snapshot: ObjectSnapshot, entity: NSEntityDescription) -> [String: Any] {
        let layout = entity.layout
        var result: [String: Any] = [:]
        for (index, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            result[attribute.name] = ValueConversion.kvcValue(snapshot.attributes[index], for: attribute) ?? NSNull()
        }
        for (index, relationship) in layout.toOneRelationships.enumerated() {
            result[relationship.name] = snapshot.toOne[index] ?? NSNull()
        }
        return result
    }
}

extension NSManagedObject {
    /// The object's row as it will be saved: stored attribute values (transformables transformed, transients
    /// null) and to-one destination IDs.
    func snapshotForSave() -> ObjectSnapshot {
        var attributes = attributeValues
        for (index, attribute) in layout.attributes.enumerated() {
            if attribute.isTransient {
                attributes[index] = .null
            } else if attribute.attributeType == .transformableAttributeType, let object = transformedValues[index] {
                attributes[index] = TransformableValues.storedValue(from: object, attribute: attribute)
            }
        }
        let toOne = layout.toOneRelationships.indices.map { toOneID(at: $0) }
        return ObjectSnapshot(attributes: attributes, toOne: toOne, version: committedSnapshot?.version ?? 0)
    }

    /// The additions and removals of the to-manys in `toMany` (``toManyForSave(all:)``) whose committed members are
    /// known.
    func toManyChangesForSave(_ toMany: [Int: [NSManagedObjectID]]) -> [Int: StoreSaveChanges.MemberDiff] {
        var result: [Int: StoreSaveChanges.MemberDiff] = [:]
        for (slot, members) in toMany {
            guard let committed = committedToMany[slot] else { continue }
            let current = Set(members), read = Set(committed)
            result[slot] = .init(added: members.filter { !read.contains($0) }, removed: committed.filter { !current.contains($0) })
        }
        return result
    }

    /// The to-many members to save: all realized relationships, or only those changed. Members deleted in this save
    /// are left out (the no-action rule leaves them in the list; their rows, and join rows, go).
    func toManyForSave(all: Bool) -> [Int: [NSManagedObjectID]] {
        var result: [Int: [NSManagedObjectID]] = [:]
        for (index, value) in toManyValues.enumerated() where all || dirtyToManySlots.contains(index) {
            if case .members(let members) = value { result[index] = members.objects.compactMap { $0._isDeleted ? nil : $0.objectID } }
        }
        return result
    }
}
