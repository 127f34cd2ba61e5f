extension NSManagedObjectContext {
    /// Checks the bookkeeping of `objects` (an event's touched objects, a save's saved ones) and stops the program at
    /// the first inconsistency (``InternalChecks``). Only what the event touched is checked, so that a long run stays
    /// linear:
    /// - a registered object is registered under its own ID and belongs to this context;
    /// - its life-cycle state (``ObjectLifeCycle``) agrees with the change sets: inserted exactly when in the inserted
    ///   set, deleted here (not elsewhere) exactly when in the deleted set (an object inserted and deleted before a save
    ///   is in both),
    ///   updated exactly when in the updated set (an inserted object may be there too: its changes are its insertion);
    /// - the row cache's row of its ID, if any, is consistent (``RowCache/_checkInvariants(of:)``).
    ///
    /// ```swift
    /// OPENCOREDATA_INTERNAL_CHECKS=1 swift test
    /// ```
    func _checkInvariants(of objects: some Sequence<NSManagedObject>) {
        var objectIDs: [NSManagedObjectID] = []
        for object in objects {
            let objectID = object._objectID
            guard object._context === self else { continue }   // reset, or moved out by a save of its deletion
            if let registered = registry[objectID] {
                precondition(registered === object, "Internal check: \(objectID) is registered to another object")
            } else {
                preconditionFailure("Internal check: \(objectID) belongs to the context but is not registered")
            }
            let state = object.lifeCycle
            precondition(state.isInserted == insertedSet.contains(object),
                         "Internal check: \(objectID) is \(state) but \(insertedSet.contains(object) ? "is" : "is not") in the inserted set")
            precondition(state.isDeletedHere == deletedSet.contains(object),
                         "Internal check: \(objectID) is \(state) but \(deletedSet.contains(object) ? "is" : "is not") in the deleted set")
            precondition(state.isUpdated == updatedSet.contains(object) || state.isInserted,
                         "Internal check: \(objectID) is \(state) but \(updatedSet.contains(object) ? "is" : "is not") in the updated set")
            if !objectID.isTemporaryID { objectIDs.append(objectID) }
        }
        persistentStoreCoordinator?.rowCache._checkInvariants(of: objectIDs)
    }
}
