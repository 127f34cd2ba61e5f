extension NSManagedObjectContext {
    // MARK: Change sets

    /// The objects inserted and not yet saved.
    public var insertedObjects: Set<NSManagedObject> {
        checkConfinement()
        return Set(insertedSet.filter { !$0._isDeleted })
    }

    /// The objects with unsaved changes (not inserted or deleted ones).
    public var updatedObjects: Set<NSManagedObject> {
        checkConfinement()
        return Set(updatedSet.filter { !$0._isInserted && !$0._isDeleted })
    }

    /// The objects deleted and not yet saved (including those deleted by delete rules once processed).
    public var deletedObjects: Set<NSManagedObject> {
        checkConfinement()
        return Set(deletedSet.filter { !$0._isInserted })
    }

    /// Whether the context has unsaved inserts, updates or deletions.
    public var hasChanges: Bool {
        checkConfinement()
        return insertedSet.contains { !$0._isDeleted } || !deletedSet.allSatisfy(\._isInserted)
            || updatedSet.contains { !$0._isInserted && !$0._isDeleted }
    }

    /// Every object the context knows (an unchanged one nobody else holds leaves at the end of an event, unless
    /// `retainsRegisteredObjects`).
    public var registeredObjects: Set<NSManagedObject> {
        checkConfinement()
        return Set(registry.values)
    }

    // MARK: Looking objects up

    /// The object registered for `objectID`, if the context has it in memory.
    ///
    /// For example:
    /// ```swift
    /// if let mood = context.registeredObject(for: id) as? Mood { … }
    /// ```
    public func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? {
        checkConfinement()
        return registry[objectID]
    }

    /// The object for `objectID`: the registered one, or a fault that loads its values when first used.
    /// (It does not check that the object exists; `existingObject(with:)` does.)
    ///
    /// For example:
    /// ```swift
    /// let mood = context.object(with: id) as! Mood
    /// ```
    public func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        checkConfinement()
        return registeredObjectOrFault(for: objectID)
    }

    /// `object(with:)` without the confinement check (for callers on the queue already, such as fetches): one
    /// registry look-up, whose slot takes the new fault when there is no object.
    func registeredObjectOrFault(for objectID: NSManagedObjectID) -> NSManagedObject {
        if !replacedTemporaryIDs.isEmpty, registry[objectID] == nil, let replaced = replacedTemporaryIDs[objectID] {
            return registeredObjectOrFault(for: replaced)
        }
        let classes = faultClasses
        let (object, isNew) = registry.withSlot(for: objectID) { Self.objectOrNewFault(in: &$0, for: objectID, classes: classes) }
        if isNew {
            didRegister(object)
            if case .reference = objectID.key { noteRegistered([objectID]) }
        }
        return object
    }

    /// The object of a registry slot, or a new fault put in the slot.
    private static func objectOrNewFault(in slot: inout NSManagedObject?, for objectID: NSManagedObjectID, classes: FaultClassCache) -> (NSManagedObject, isNew: Bool) {
        if let object = slot { return (object, false) }
        let fault = ManagedObjectFactory.makeFault(for: objectID, classes: classes)
        slot = fault
        return (fault, true)
    }

    /// The object for `objectID`, its values loaded; throws `NSManagedObjectReferentialIntegrityError` (133000)
    /// if no store has it.
    ///
    /// For example:
    /// ```swift
    /// let mood = try context.existingObject(with: id) as! Mood
    /// ```
    public func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        checkConfinement()
        if let object = registry[objectID], !object._isFault { return object }
        let object = self.object(with: objectID)
        if object._isFault {
            guard try loadValues(into: object, failIfMissing: false) else {
                throw CoreDataError.make(NSManagedObjectReferentialIntegrityError, "The object \(objectID) does not exist in the store",
                                         userInfo: [NSAffectedObjectsErrorKey: [objectID]])
            }
        }
        return object
    }

    // MARK: Inserting and deleting

    /// Inserts a new object (objects created with a context are inserted already).
    ///
    /// For example:
    /// ```swift
    /// let mood = Mood(entity: Mood.entity(), insertInto: nil)
    /// context.insert(mood)
    /// ```
    public func insert(_ object: NSManagedObject) {
        checkConfinement()
        if let owner = object._context, owner !== self {
            preconditionFailure("An NSManagedObject may only be in (or observed by) a single NSManagedObjectContext: \(object.objectID) belongs to another context.")
        }
        if object._context === self && object._isDeleted && object._isInserted {
            // Re-inserting an object that was inserted and then deleted in this context.
            object.lifeCycle.undelete()
            deletedSet.remove(object)
            unpropagatedDeletes.remove(object)
            registerUndoForInsert(object)
            return
        }
        guard object._context == nil else { return }
        precondition(!object.entity.isAbstract, "Cannot insert an object of the abstract entity '\(object.entity.name ?? "?")'.")
        object._context = self
        object.lifeCycle.insert()
        register(object)
        if object.hasKeyValueObservers { observeAtEventEnds(object) }
        insertedSet.insert(object)
        eventChanges.inserted.insert(object)
        registerUndoForInsert(object)
        scheduleMainQueueEventIfNeeded()
        // Apple calls awakeFromInsert once in an object's life: not again when redo re-inserts it.
        if !object.hasAwakenedFromInsert {
            object.hasAwakenedFromInsert = true
            object.awakeFromInsert()
        }
    }

    /// Deletes an object: it is removed from the store at the next save, and its relationships are handled by
    /// their delete rules at the end of the event.
    ///
    /// For example:
    /// ```swift
    /// context.delete(mood)
    /// ```
    public func delete(_ object: NSManagedObject) {
        checkConfinement()
        guard object._context === self else {
            if object._context == nil { return }
            preconditionFailure("Cannot delete \(object.objectID): it belongs to another context.")
        }
        guard !object._isDeleted else { return }
        if object._isFault { fireFault(object) }
        object.lifeCycle.delete()
        deletedSet.insert(object)
        unpropagatedDeletes.insert(object)
        eventChanges.deleted.insert(object)
        registerUndoForDelete(object)
        scheduleMainQueueEventIfNeeded()
    }

    // MARK: Registration (internal)

    /// Registers `object` under its ID. The registry holds it strongly; at the end of the event, if it is unchanged
    /// and nobody else holds it, it leaves the registry (as Apple's autoreleased objects live until the pool drains
    /// and weakly held ones go when released).
    func register(_ object: NSManagedObject) {
        registry[object._objectID] = object
        didRegister(object)
    }

    /// What registering an object sets besides its registry slot: its context, and its release at the event's end.
    private func didRegister(_ object: NSManagedObject) {
        object._context = self
        if !_retainsRegisteredObjects { releaseCandidates.append(object._objectID) }
    }

    /// Marks an object that became unchanged (saved, reverted, refreshed) for release at the end of the event if
    /// nobody else holds it.
    func releaseIfUnchanged(_ object: NSManagedObject) {
        guard !_retainsRegisteredObjects, !object.hasChanges else { return }
        releaseCandidates.append(object._objectID)
    }

    /// At the end of an event: the candidates that are unchanged and held only by the registry leave it.
    func releaseUnreferencedCandidates() {
        guard !releaseCandidates.isEmpty else { return }
        let ids = releaseCandidates
        releaseCandidates = []
        guard !_retainsRegisteredObjects else { return }
        noteUnregistered(registry.removeReleasable(among: ids))
    }

    /// Records that `object` changed (called by `didChangeValue`): it joins `updatedObjects`.
    func noteUpdated(_ object: NSManagedObject) {
        guard !object._isInserted, !object._isDeleted else {
            // An object inserted in this event is reported as inserted only (`postObjectsDidChange` leaves the event's
            // inserted objects out of its updated ones): the usual case, a new object's setters, needs no set insert.
            if !eventChanges.inserted.isLastInserted(object) { eventChanges.updated.insert(object) }
            return
        }
        if object._isUpdated {
            // Already in `updatedSet` (an object leaves it when `_isUpdated` is cleared).
            eventChanges.updated.insert(object)
            scheduleMainQueueEventIfNeeded()
            return
        }
        object.lifeCycle.update()
        updatedSet.insert(object)
        eventChanges.updated.insert(object)
        scheduleMainQueueEventIfNeeded()
    }

    /// For a main-queue context used outside `perform`, processes pending changes at the next main-queue turn
    /// (the Linux stand-in for the end of a run-loop pass).
    func scheduleMainQueueEventIfNeeded() {
        guard concurrencyType == .mainQueueConcurrencyType, !mainQueueEventScheduled, !isInsideEvent else { return }
        mainQueueEventScheduled = true
        let context = UncheckedSendableBox(self)
        DispatchQueue.main.async {
            context.value.mainQueueEventScheduled = false
            context.value.endEvent()
        }
    }
}
