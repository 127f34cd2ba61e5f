extension NSManagedObjectContext {
    /// Whether a `perform`/`performAndWait` block is running.
    var isInsideEvent: Bool { eventDepth > 0 }

    /// Ends the current event: applies delete rules, posts `ObjectsDidChange`, closes the undo group.
    func endEvent() {
        processPendingChangesInternal()
    }

    /// Applies pending delete rules and posts `NSManagedObjectContextObjectsDidChange` for the changes of the
    /// current event; closes the undo manager's event group. Contexts do this at the end of every event; call it
    /// to force it now.
    ///
    /// For example:
    /// ```swift
    /// context.delete(mood)
    /// context.processPendingChanges()   // the mood's country no longer lists it
    /// ```
    public func processPendingChanges() {
        checkConfinement()
        processPendingChangesInternal()
    }

    func processPendingChangesInternal() {
        // An `ObjectsDidChange` observer that fetches or saves would come back here: the event is being processed
        // already (its undo registered, its old values still needed by the other observers).
        guard !isProcessingPendingChanges else { return }
        isProcessingPendingChanges = true
        defer { isProcessingPendingChanges = false }
        if _propagatesDeletesAtEndOfEvent { propagateDeletes() }
        let touched = InternalChecks.isEnabled ? eventTouchedObjects : []
        registerUndoForEvent()
        postObjectsDidChange()
        forgetEventOldValues()
        closeUndoEventGroup()
        purgeReleasedObjects()
        if InternalChecks.isEnabled { _checkInvariants(of: touched) }
    }

    /// Drops the old values the event's changes recorded: the next event records its own.
    func forgetEventOldValues() {
        let touched = eventTouchedObjects
        eventTouchedObjects = []
        for object in touched {
            object.dropEventOldValues()
            object.isEventTouched = false
        }
    }

    /// Applies the delete rules of every deleted object whose rules have not been applied yet (cascading
    /// deletes are processed in the same pass).
    func propagateDeletes() {
        while let object = unpropagatedDeletes.popFirst() {
            object.prepareForDeletion()
            // The layout's list: casting each of the entity's properties cost more than the rules of an entity without
            // relationships.
            for relationship in object.layout.relationships { applyDeleteRule(of: relationship, to: object) }
        }
    }

    private func applyDeleteRule(of relationship: NSRelationshipDescription, to object: NSManagedObject) {
        if relationship.isToMany && (relationship.deleteRule == .nullifyDeleteRule || relationship.deleteRule == .cascadeDeleteRule) {
            // The list read first (the rule reads it below anyway): its members are checked against their own copies.
            _ = object.value(forKey: relationship.name)
            applyDeleteRuleToUnlistedMembers(of: relationship, to: object)
        }
        let destinations: [NSManagedObject]
        if relationship.isToMany {
            destinations = (object.value(forKey: relationship.name) as? NSSet)?.allObjects.compactMap { $0 as? NSManagedObject }
                ?? (object.value(forKey: relationship.name) as? NSOrderedSet)?.array.compactMap { $0 as? NSManagedObject } ?? []
        } else {
            destinations = (object.value(forKey: relationship.name) as? NSManagedObject).map { [$0] } ?? []
        }
        guard !destinations.isEmpty else { return }
        switch relationship.deleteRule {
        case .nullifyDeleteRule:
            // Clearing the deleted object's side updates the inverse side (and registers the undo action).
            object.setValue(nil, forKey: relationship.name)
        case .cascadeDeleteRule:
            for destination in destinations { delete(destination) }
        case .denyDeleteRule, .noActionDeleteRule:
            break  // deny is enforced by validateForDelete at save; no action leaves the graph as it is
        }
    }

    /// Posts `ObjectsDidChange` with the objects inserted, updated, deleted, refreshed or invalidated during
    /// the current event, and starts a new event.
    func postObjectsDidChange() {
        // Key-value observers first, as Apple's are told while the objects change, before the notification.
        keyValueObservers?.reconcile(in: self, changes: eventChanges)
        let changes = eventChanges
        eventChanges = EventChanges()
        guard !changes.isEmpty else { return }
        var userInfo: [AnyHashable: Any] = [:]
        let updated = changes.updated.filter { !changes.inserted.contains($0) && !changes.deleted.contains($0) }
        if !changes.inserted.isEmpty { userInfo[NSInsertedObjectsKey] = changes.inserted.set }
        if !updated.isEmpty { userInfo[NSUpdatedObjectsKey] = Set(updated) }
        if !changes.deleted.isEmpty { userInfo[NSDeletedObjectsKey] = changes.deleted.set }
        if !changes.refreshed.isEmpty { userInfo[NSRefreshedObjectsKey] = changes.refreshed.set }
        if !changes.invalidated.isEmpty { userInfo[NSInvalidatedObjectsKey] = changes.invalidated.set }
        if changes.invalidatedAll { userInfo[NSInvalidatedAllObjectsKey] = registeredObjects }
        guard !userInfo.isEmpty else { return }
        postNotification(.NSManagedObjectContextObjectsDidChange, userInfo: userInfo)
    }

    /// Lets go of unchanged objects nobody else holds: the event's candidates, and every object (objects the
    /// application held past their event and dropped since) whenever the registry has doubled since the last full
    /// scan or `registryScanInterval` has passed.
    func purgeReleasedObjects() {
        releaseUnreferencedCandidates()
        // A full scan costs O(registered objects): only when the registry has doubled, or at most once an interval.
        guard !_retainsRegisteredObjects, registry.count > 64 else { return }
        let now = ContinuousClock.now
        guard registry.count > 2 * registryCountAfterPurge || lastRegistryScan.duration(to: now) >= registryScanInterval else { return }
        noteUnregistered(registry.removeReleasable(among: nil))
        registryCountAfterPurge = registry.count
        lastRegistryScan = now
    }

    /// Records that a to-many relationship of `object` changed.
    func noteToManyChanged(_ object: NSManagedObject, slot: Int) {
        object.dirtyToManySlots.insert(slot)
        noteUpdated(object)
    }

    /// The members the store had in a deleted object's to-many when this context read it, that its realized list no
    /// longer shows although this context did not move them away: a copy of the member read before another context
    /// moved it there (its to-one still says elsewhere), or a list read while the member's own move was pending
    /// and since undone. The rule applies to them too — each read from the store first, so that what the save writes
    /// is the store's row with the rule applied — or the store would keep a member pointing at a deleted row.
    /// The same for a member the list does show whose copy, read before another context moved it there, says it is
    /// elsewhere: clearing the list's side would leave its to-one, and so its row, as it was (nullify; cascade deletes
    /// every listed member anyway).
    private func applyDeleteRuleToUnlistedMembers(of relationship: NSRelationshipDescription, to object: NSManagedObject) {
        guard let inverse = relationship.inverseRelationship, !inverse.isToMany, case .toMany(let slot, _)? = object.layout.slots[relationship.name],
              case .members(let members) = object.toManyValues[slot]
        else { return }
        let committed = object.committedToMany[slot] ?? []
        var seen = Set<NSManagedObjectID>()
        for id in committed + members.objects.map(\.objectID) where seen.insert(id).inserted {
            let member = self.object(with: id)
            let listed = members.contains(member)
            if listed {
                // A listed member that points here is cleared with the list's side (a fault read first, as clearing
                // would read it — from the coordinator's cache, which may hold a copy older than the list).
                guard relationship.deleteRule == .nullifyDeleteRule, case .toOne(let index, _)? = member.layout.slots[inverse.name] else { continue }
                if member._isFault {
                    guard (try? loadValues(into: member, failIfMissing: false)) == true else { continue }
                }
                guard member.toOneID(at: index) != object.objectID else { continue }
            } else if member._isFault {
                // Read now from the store (a fault has no change of its own); below it gets the rule if it is still there.
                guard (try? loadValues(into: member, failIfMissing: false)) == true else { continue }
            }
            // One with unsaved changes of its own (moved away, say) is what this context saves, not the store's member.
            guard !member._isDeleted, !member.hasChanges, !member.objectID.isTemporaryID,
                  case .toOne(let index, _)? = member.layout.slots[inverse.name]
            else { continue }
            if member.toOneID(at: index) != object.objectID {
                // A copy read before another context moved it here: the store's row says where it is now.
                persistentStoreCoordinator?.rowCache.remove([id])
                refresh(member, mergeChanges: false)
            }
            guard member.primitiveToOne(inverse) === object else { continue }
            if relationship.deleteRule == .cascadeDeleteRule {
                delete(member)
            } else {
                member.setValue(nil, forKey: inverse.name)
            }
        }
    }
}
