extension NSManagedObjectContext {
    /// Discards every unsaved change: inserted objects leave the context, deleted ones come back, updated ones
    /// return to their committed values; the undo stack is cleared.
    ///
    /// For example:
    /// ```swift
    /// mood.rating = 1
    /// context.rollback()   // rating is back to its saved value
    /// ```
    public func rollback() {
        checkConfinement()
        processPendingChangesInternal()
        for object in insertedSet.array {
            registry[object.objectID] = nil
            object._isInserted = false
            object._isDeleted = false
            object._context = nil
            eventChanges.invalidated.insert(object)
        }
        for object in updatedSet.array + deletedSet.array where !object._isInserted && object._context === self {
            object._isDeleted = false
            object._isUpdated = false
            object.dirtyToManySlots = []
            if let committed = object.committedSnapshot ?? cachedSnapshot(for: object.objectID) {
                object.apply(committed)
            } else {
                object.turnIntoFault()
            }
            releaseIfUnchanged(object)
            eventChanges.refreshed.insert(object)
            object.awake(fromSnapshotEvents: .rollback)
        }
        rereadInverseToManys(listing: updatedSet.array + deletedSet.array)
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        unpropagatedDeletes.removeAll()
        undoManager?.removeAllActions()
        postObjectsDidChange()
    }

    /// Forgets every object: the context is as if just created (objects you still hold must not be used).
    public func reset() {
        checkConfinement()
        advanceQueryGeneration()   // a pinned context moves to the current generation when it is reset
        let (invalidated, held) = registry.removeAllForReset(everyObject: _retainsRegisteredObjects)
        for object in held {
            object.turnIntoFault()
            object._isInserted = false
            object._isDeleted = false
            object._isUpdated = false
            object._context = nil
        }
        registry.removeAll()   // objects the fault hooks may have registered
        defer {
            // Observers (fetched results controllers, object observers) learn that every object is gone.
            if !invalidated.isEmpty {
                NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self,
                                                userInfo: [NSInvalidatedAllObjectsKey: invalidated])
            }
        }
        noteUnregistered(invalidated)
        releaseCandidates.removeAll()
        registryCountAfterPurge = 0
        faultBatches.removeAll()
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        unpropagatedDeletes.removeAll()
        eventChanges = EventChanges()
        pendingChanges.removeAll()
        undoManager?.removeAllActions()
    }

    /// Refreshes an object: with `mergeChanges` false it becomes a fault (unsaved changes are discarded) and
    /// reloads its values on next access; with true its values are reloaded from the store and its unsaved
    /// changes re-applied on top.
    ///
    /// For example:
    /// ```swift
    /// context.refresh(mood, mergeChanges: false)   // drops changes, frees memory
    /// ```
    public func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        checkConfinement()
        guard object._context === self, !object._isInserted else { return }
        if let coordinator = persistentStoreCoordinator { coordinator.rowCache.remove([object.objectID]) }
        if flag && object.hasChanges && !object._isFault {
            var changes = object.changedValues()
            let dirty = object.dirtyToManySlots
            // To-many changes go back on as additions and removals, on top of the members saved elsewhere since.
            let memberChanges = object.memberChangesSinceCommit()
            for change in memberChanges { changes[object.layout.toManyRelationships[change.slot].name] = nil }
            guard (try? loadValues(into: object, failIfMissing: false)) == true else { return }
            for (key, value) in changes {
                object.setPrimitiveValue(ValueConversion.isNull(value) ? nil : value, forKey: key)
            }
            for change in memberChanges { object.reapply(change, in: self) }
            object.dirtyToManySlots = dirty
        } else {
            object._isUpdated = false
            object.dirtyToManySlots = []
            updatedSet.remove(object)
            object.turnIntoFault()
            releaseIfUnchanged(object)
        }
        eventChanges.refreshed.insert(object)
        object.awake(fromSnapshotEvents: .refresh)
    }

    /// Refreshes every registered object, keeping unsaved changes.
    public func refreshAllObjects() {
        checkConfinement()
        for object in Array(registry.values) {
            refresh(object, mergeChanges: object.hasChanges)
        }
    }

    /// Marks an object for optimistic-locking checks at the next save, even if it is unchanged.
    public func detectConflicts(for object: NSManagedObject) {
        checkConfinement()
        guard object._context === self, !object._isInserted else { return }
        if object._isFault { fireFault(object) }
        object._isUpdated = true
        updatedSet.insert(object)
    }
}
