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
            object.lifeCycle.leaveContext()
            object._context = nil
            eventChanges.invalidated.insert(object)
        }
        for object in updatedSet.array + deletedSet.array where !object._isInserted && object._context === self {
            object.lifeCycle.rollBack()
            object.dirtyToManySlots = []
            if deletionsWithMergedRows.contains(object.objectID) {
                object.turnIntoFault()
            } else if let committed = object.committedSnapshot ?? cachedSnapshot(for: object.objectID) {
                // Transients have no committed values: those changed go back to what they were before the changes.
                object.applyKeepingTransients(committed)
                object.restoreTransientsBeforeChanges()
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
        deletionsWithMergedRows.removeAll()
        faultedInsertions.removeAll()
        undoManager?.removeAllActions()
        postObjectsDidChange()
    }

    /// Forgets every object: the context is as if just created (objects you still hold must not be used).
    public func reset() {
        checkConfinement()
        advanceQueryGeneration()   // a pinned context moves to the current generation when it is reset
        let (invalidated, held) = registry.removeAllForReset(everyObject: _retainsRegisteredObjects)
        for object in held {
            object.discardUpdateAndTurnIntoFault()
            object.lifeCycle.leaveContext()
            object._context = nil
        }
        registry.removeAll()   // objects the fault hooks may have registered
        defer {
            // Observers (fetched results controllers, object observers) learn that every object is gone.
            if !invalidated.isEmpty {
                postNotification(.NSManagedObjectContextObjectsDidChange, userInfo: [NSInvalidatedAllObjectsKey: invalidated])
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
        deletionsWithMergedRows.removeAll()
        faultedInsertions.removeAll()
        eventChanges = EventChanges()
        pendingChanges.removeAll()
        undoManager?.removeAllActions()
    }

    /// Refreshes an object's persistent values from the store, or from the coordinator's row cache while its row
    /// there is younger than `stalenessInterval` (by default any cached row is used; 0 always reads the store).
    ///
    /// With `mergeChanges` false the object becomes a fault: its unsaved changes and its transient values are
    /// discarded, and its values are loaded on next access (the transients at their default values). With true an
    /// object with unsaved changes reloads its persistent values and puts its changes, and its transient values, back
    /// on top; one without changes becomes a fault.
    ///
    /// An inserted object that was never saved becomes a fault too with `mergeChanges` false, as on Apple's
    /// platforms; it has no row to load again, so firing it is an inaccessible fault (see
    /// `shouldDeleteInaccessibleFaults`: by default it becomes an empty object marked deleted, which the next save
    /// leaves out). With true it keeps its values.
    ///
    /// For example:
    /// ```swift
    /// context.refresh(mood, mergeChanges: false)   // drops changes, frees memory
    /// context.stalenessInterval = 0
    /// context.refresh(mood, mergeChanges: true)    // reads the store's row, keeps the unsaved changes on top
    /// ```
    public func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        checkConfinement()
        guard object._context === self, !(object._isInserted && flag) else { return }
        if flag && object.hasChanges && !object._isFault {
            var changes = object.changedValues()
            let dirty = object.dirtyToManySlots
            let transients = object.transientValues()
            // To-many changes go back on as additions and removals, on top of the members saved elsewhere since.
            let memberChanges = object.memberChangesSinceCommit()
            for change in memberChanges { changes[object.layout.toManyRelationships[change.slot].name] = nil }
            let committedToOnes = object.committedSnapshot?.toOne
            guard (try? loadValues(into: object, failIfMissing: false)) == true else { return }
            for (key, value) in changes {
                object.setPrimitiveValue(ValueConversion.isNull(value) ? nil : value, forKey: key)
            }
            for change in memberChanges { object.reapply(change, in: self) }
            object.dirtyToManySlots = dirty
            leaveOwnersTheRowMovedTo(object, committedBefore: committedToOnes)
            // As Apple's: the changes, transients included, are put back after awakeFromFetch().
            object.restoreTransients(transients)
        } else {
            object.lifeCycle.discardUpdate()
            object.dirtyToManySlots = []
            updatedSet.remove(object)
            object.turnIntoFault()
            if object._isInserted { faultedInsertions.append(object) }
            releaseIfUnchanged(object)
        }
        eventChanges.refreshed.insert(object)
        object.awake(fromSnapshotEvents: .refresh)
    }

    /// After a refresh that keeps `object`'s unsaved to-one change: where its row now points at an owner it did not
    /// point at before (another context moved it there), the change moves it out of that owner too. The owner's
    /// realized list lets go of it and the owner is updated, so the next save writes it (its version moves with its
    /// membership, as for a move made here). Setting the values back alone left the owner listing an object saved
    /// elsewhere, and its row unwritten.
    private func leaveOwnersTheRowMovedTo(_ object: NSManagedObject, committedBefore: [NSManagedObjectID?]?) {
        guard let committed = object.committedSnapshot?.toOne else { return }
        for index in object.layout.toOnesWithToManyInverse {
            guard let stored = committed[index], stored != committedBefore?[index] ?? nil, object.toOneID(at: index) != stored,
                  let inverse = object.layout.toOneRelationships[index].inverseRelationship
            else { continue }
            let owner = self.object(with: stored)
            owner.fireFaultIfNeeded()
            guard !owner._isDeleted, !owner._isFault, case .toMany(let slot, _)? = owner.layout.slots[inverse.name] else { continue }
            if case .members(var members) = owner.toManyValues[slot], members.contains(object) {
                _ = members.remove(object)
                owner.toManyValues[slot] = .members(members)
            }
            // Changed, its list not: the member's own to-one carries the move, and the order of the members that stay
            // is the store's.
            noteUpdated(owner)
        }
    }

    /// Resolves the inserted objects `refresh(_:mergeChanges: false)` turned into faults (before a save validates
    /// them): they have no row, so each is an inaccessible fault.
    func fireFaultedInsertions() {
        guard !faultedInsertions.isEmpty else { return }
        let objects = faultedInsertions
        faultedInsertions.removeAll()
        for object in objects where object._isFault && object._isInserted && object._context === self { fireFault(object) }
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
        object.lifeCycle.update()
        updatedSet.insert(object)
    }
}
