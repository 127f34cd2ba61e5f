extension NSManagedObjectContext {
    /// Loads a fault's values; an object whose row no longer exists becomes an empty deleted object
    /// (`shouldDeleteInaccessibleFaults`) or stops the program, as Apple's Core Data does.
    func fireFault(_ object: NSManagedObject) {
        do {
            if try loadValues(into: object, failIfMissing: true) { return }
        } catch {
            preconditionFailure("CoreData could not fulfill a fault for \(object.objectID): \(error.localizedDescription)")
        }
        guard shouldHandleInaccessibleFault(object, for: object.objectID, triggeredByProperty: nil) else {
            preconditionFailure("CoreData could not fulfill a fault for \(object.objectID): the object was deleted from the store.")
        }
        object.apply(object.layout.emptySnapshot())
        object.committedSnapshot = nil
        object.lifeCycle.deleteElsewhere()
        // An insertion refreshed into a fault: deleted as any inserted object is (the save leaves it out).
        if object._isInserted { deletedSet.insert(object) }
    }

    /// Loads the values of `object` from the row cache or the store; false if the row does not exist.
    @discardableResult
    func loadValues(into object: NSManagedObject, failIfMissing: Bool) throws -> Bool {
        if let batch = faultBatches.removeValue(forKey: object.objectID) { try loadBatch(batch, firing: object.objectID) }
        guard let snapshot = try snapshot(for: object.objectID) else { return false }
        realize(object, with: snapshot)
        return true
    }

    /// Gives a fault the values of `snapshot` (a row just read) and awakes it from fetch.
    func realize(_ object: NSManagedObject, with snapshot: consuming ObjectSnapshot) {
        object.apply(snapshot)
        changeProcessingSuspended += 1
        defer { changeProcessingSuspended -= 1 }
        object.awakeFromFetch()
    }

    /// Takes objects that left the registry (released, or deleted elsewhere) out of their fault batches: the batch's
    /// other faults no longer load their rows, and the context keeps no entry per object it ever fetched in batches.
    func leaveFaultBatches(_ objectIDs: some Sequence<NSManagedObjectID>) {
        guard !faultBatches.isEmpty else { return }
        for objectID in objectIDs { faultBatches.removeValue(forKey: objectID) }
    }

    /// Reads the rows of a batch's remaining faults (`firing`, and those still registered in the batch) with one
    /// store call per store, into the row cache.
    private func loadBatch(_ batch: FaultBatch, firing: NSManagedObjectID) throws {
        guard let coordinator = persistentStoreCoordinator else { return }
        let rowCache = readRowCache(coordinator)   // a pinned query generation's own cache
        let pending = batch.ids.filter { objectID in
            guard objectID == firing || faultBatches.removeValue(forKey: objectID) === batch else { return false }
            return rowCache.snapshot(for: objectID, maximumAge: _stalenessInterval) == nil
        }
        batch.ids = []
        try coordinator.readSnapshots(of: pending, for: storeReadContext, recordingIn: rowCache)
        // The whole batch is realized, as Apple's batched arrays realize a batch at a time.
        for objectID in pending {
            guard let object = registry[objectID], object._isFault, let snapshot = rowCache.snapshot(for: objectID) else { continue }
            object.apply(snapshot)
            changeProcessingSuspended += 1
            object.awakeFromFetch()
            changeProcessingSuspended -= 1
        }
    }

    /// The current row of an object: from the row cache, or the store (then cached).
    func snapshot(for objectID: NSManagedObjectID) throws -> ObjectSnapshot? {
        if let parent = _parent { return try snapshotFromParent(parent, objectID) }
        guard let coordinator = persistentStoreCoordinator else { return nil }
        let rowCache = readRowCache(coordinator)   // a pinned query generation's own cache
        if let cached = rowCache.snapshot(for: objectID, maximumAge: _stalenessInterval) { return cached }
        // A store removed meanwhile (another thread) no longer has the row.
        return try coordinator.readSnapshot(of: objectID, for: storeReadContext, recordingIn: rowCache)
    }

    /// The row cache's snapshot of an object, if any.
    func cachedSnapshot(for objectID: NSManagedObjectID) -> ObjectSnapshot? {
        persistentStoreCoordinator?.rowCache.snapshot(for: objectID)
    }

    /// The members of a to-many relationship as the store has them, as objects of this context.
    func loadToMany(of object: NSManagedObject, relationship: NSRelationshipDescription, slot: Int) -> [NSManagedObject] {
        guard !object._isInserted, object.committedSnapshot != nil else { return [] }
        var ids = committedToManyIDs(of: object, relationship: relationship)
        if let coordinator = persistentStoreCoordinator { ids = readRowCache(coordinator).sharedIDs(ids) }
        object.committedToMany[slot] = ids
        var members = ids.map { self.object(with: $0) }
        batchMemberFaults(members)
        leaveMembersMovedElsewhere(&members, of: object, relationship: relationship)
        return members
    }

    /// Takes out of a to-many just read from the store (or the parent) the members that this context shows elsewhere:
    /// a member whose to-one inverse has an unsaved change pointing away from `object`.
    ///
    /// The context's move was made before the store listed the member here (another context moved it in, and a merge
    /// refreshed the owner into a fault), so the move's inverse maintenance never saw this owner; the owner's list
    /// must still show the context's change. The committed members keep it, so the change reads as this owner's
    /// removal of it (re-applied on a later merge, as the member's own change is).
    ///
    /// A member whose to-one changed in the current event counts where it was when the event began: the change's
    /// inverse maintenance is what realizes the list, and it takes the member out (moved away from here) or adds it at
    /// the end (moved back here), recording the change as it does for a list read before. One look-up per member;
    /// members that are faults have no changes.
    private func leaveMembersMovedElsewhere(_ members: inout [NSManagedObject], of object: NSManagedObject, relationship: NSRelationshipDescription) {
        guard let inverse = relationship.inverseRelationship, !inverse.isToMany, !members.isEmpty,
              !insertedSet.isEmpty || !updatedSet.isEmpty || !deletedSet.isEmpty
        else { return }
        let ownerID = object.objectID
        members.removeAll { member in
            guard member.hasChanges, !member._isFault, case .toOne(let slot, _)? = member.layout.slots[inverse.name] else { return false }
            if member.isEventTouched, let position = member.layout.slots.position(of: inverse.name),
               let old = member.eventOldValues.value(at: position) {
                return (old as? NSManagedObject) !== object
            }
            let current = member.toOneID(at: slot)
            return current != ownerID && current != member.committedSnapshot?.toOne[slot]
        }
    }

    /// A fired to-many fault's members that are faults load together: firing one reads the rows of all that are
    /// still faults with one query, where Apple's read one row per member (the N + 1 queries that prefetching
    /// exists to avoid; DEVIATIONS O15). Not when the first member's row is cached (a warm cache serves each
    /// member without a query) nor in a child context (its members' values come from its parent).
    private func batchMemberFaults(_ members: [NSManagedObject]) {
        guard members.count > 1, _parent == nil, let coordinator = persistentStoreCoordinator else { return }
        let faults = members.filter { $0._isFault && faultBatches[$0.objectID] == nil }
        guard faults.count > 1, readRowCache(coordinator).snapshot(for: faults[0].objectID, maximumAge: _stalenessInterval) == nil else { return }
        let batch = FaultBatch(ids: faults.map(\.objectID))
        for objectID in batch.ids { faultBatches[objectID] = batch }
    }

    /// The IDs of a to-many relationship's destinations as the store has them.
    func committedToManyIDs(of object: NSManagedObject, relationship: NSRelationshipDescription) -> [NSManagedObjectID] {
        if let parent = _parent {
            do {
                return try memberIDsFromParent(parent, object.objectID, relationship)
            } catch {
                preconditionFailure("CoreData could not fulfill the '\(relationship.name)' relationship fault of \(object.objectID) from the parent context: \(error.localizedDescription)")
            }
        }
        guard let coordinator = persistentStoreCoordinator else { return [] }
        do {
            return try coordinator.readRelatedObjectIDs(of: object.objectID, through: relationship, for: storeReadContext)
        } catch {
            preconditionFailure("CoreData could not fulfill the '\(relationship.name)' relationship fault of \(object.objectID): \(error.localizedDescription)")
        }
    }
}
