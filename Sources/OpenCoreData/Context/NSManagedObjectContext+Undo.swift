extension NSManagedObjectContext {
    /// Undoes the last undo group (processing pending changes first).
    public func undo() {
        checkConfinement()
        processPendingChangesInternal()
        undoManager?.undo()
        processPendingChangesInternal()
    }

    /// Redoes the last undone group.
    public func redo() {
        checkConfinement()
        processPendingChangesInternal()
        undoManager?.redo()
        processPendingChangesInternal()
    }

    /// Closes the undo manager's group for the event that just ended.
    func closeUndoEventGroup() {
        (_undoManager)?.closeEventGroup()
    }

    // MARK: Registration (internal)

    /// Registers the undo of the event that is ending: for every object changed in it, restoring the values its
    /// changed properties had when the event began — both sides of every relationship, since inverse maintenance
    /// records the other side's old values too. Apple's contexts do the same in `processPendingChanges`, which
    /// is why changes made with undo registration disabled must be processed before it is enabled again.
    ///
    /// A to-many relationship is restored as a change, not as a value: the undo takes out the members the event added
    /// and puts back those it removed, so members that other changes (a merge, a child's save) brought since stay.
    /// The members it had after the event are kept with the action for that. One action restores every object of
    /// the event, reading what they show before it restores any (a relationship read while another object's side was
    /// already restored would show that object elsewhere).
    func registerUndoForEvent() {
        guard let undoManager = _undoManager, undoManager.isUndoRegistrationEnabled else { return }
        var restores: [UndoRestore] = []
        for object in eventTouchedObjects where object.hasEventOldValues {
            let values = object.eventOldValuesByKey
            var after: [String: Any] = [:]
            for key in values.keys where object.isToManyKey(key) { after[key] = object.valueForUndo(forKey: key) }
            restores.append(UndoRestore(object: object, values: values, source: after))
        }
        guard !restores.isEmpty else { return }
        // The action targets the context and holds the objects strongly: an unchanged object is held only weakly by
        // the context, and its undo must still work after a save (Apple's undo manager keeps the objects too).
        undoManager.registerUndo(withTarget: self) { context in context.restoreValues(restores) }
    }

    /// Sets each object's values back as they were — no inverse maintenance (the other side restores itself) — and
    /// registers the opposite restore for redo. A to-many key with a value in `source` (the members it had when the
    /// restored change ended) gets the change from `source` to `values` on top of its members now.
    func restoreValues(_ restores: [UndoRestore]) {
        let current = restores.map { restore in
            UndoRestore(object: restore.object, values: restore.values.keys.reduce(into: [:]) { $0[$1] = restore.object.valueForUndo(forKey: $1) },
                        source: [:])
        }
        for restore in restores {
            for (key, value) in restore.values { restore.object.restoreValueForUndo(value, forKey: key, changedFrom: restore.source[key]) }
        }
        let redo = zip(current, restores).map { current, restore in
            UndoRestore(object: current.object, values: current.values,
                        source: restore.source.keys.reduce(into: [:]) { $0[$1] = restore.object.valueForUndo(forKey: $1) })
        }
        _undoManager?.registerUndo(withTarget: self) { context in context.restoreValues(redo) }
        for restore in restores { restore.object.awake(fromSnapshotEvents: .undoUpdate) }
    }

    /// Registers the undo of an insertion.
    func registerUndoForInsert(_ object: NSManagedObject) {
        guard let undoManager = _undoManager, undoManager.isUndoRegistrationEnabled else { return }
        undoManager.registerUndo(withTarget: self) { context in context.undoInsertion(of: object) }
    }

    /// Registers the undo of a deletion.
    func registerUndoForDelete(_ object: NSManagedObject) {
        guard let undoManager = _undoManager, undoManager.isUndoRegistrationEnabled else { return }
        undoManager.registerUndo(withTarget: self) { context in context.undoDeletion(of: object) }
    }

    /// Takes an inserted object out of the context (or, if it was saved since, deletes it).
    func undoInsertion(of object: NSManagedObject) {
        guard object._isInserted else {
            // Saved since: undoing the insertion deletes it. The delete rules run now, inside the undo, so that
            // their own undo lands in the redo group like every other action of this undo.
            if object._context === self {
                delete(object)
                propagateDeletes()
                registerUndoForEvent()
                forgetEventOldValues()
            }
            return
        }
        insertedSet.remove(object)
        updatedSet.remove(object)
        deletedSet.remove(object)
        unpropagatedDeletes.remove(object)
        eventChanges.inserted.remove(object)
        eventChanges.deleted.insert(object)
        registry[object.objectID] = nil
        object.lifeCycle.leaveContext()
        object._context = nil
        registerUndoForRedoInsert(object)
        object.awake(fromSnapshotEvents: .undoInsertion)
    }

    private func registerUndoForRedoInsert(_ object: NSManagedObject) {
        guard let undoManager = _undoManager else { return }
        undoManager.registerUndo(withTarget: self) { context in context.insert(object) }
    }

    /// Brings a deleted object back (re-inserting it if the deletion was saved since).
    func undoDeletion(of object: NSManagedObject) {
        if object._context == nil {
            object._context = self
            object.lifeCycle.insert()
            object.committedSnapshot = nil
            register(object)
            insertedSet.insert(object)
            eventChanges.inserted.insert(object)
        } else {
            guard object._isDeleted else { return }
            object.lifeCycle.undelete()
            deletedSet.remove(object)
            unpropagatedDeletes.remove(object)
            eventChanges.deleted.remove(object)
            eventChanges.inserted.insert(object)
            if !object._isInserted && !object._isUpdated { releaseIfUnchanged(object) }
        }
        registerRedoForDelete(object)
        object.awake(fromSnapshotEvents: .undoDeletion)
    }

    /// Registers deleting the object again (the redo of an undone deletion). The deletion's effects on other
    /// objects are redone by the event's restore actions, so the delete rules are not applied a second time.
    private func registerRedoForDelete(_ object: NSManagedObject) {
        guard let undoManager = _undoManager else { return }
        undoManager.registerUndo(withTarget: self) { context in context.redoDeletion(of: object) }
    }

    /// Deletes an object again without propagating the delete rules (see ``registerRedoForDelete(_:)``).
    func redoDeletion(of object: NSManagedObject) {
        guard object._context === self else { return }
        delete(object)
        unpropagatedDeletes.remove(object)
    }
}

/// One object's part of an undo or redo: the values to put back, and for to-many keys the members they had when the
/// change being undone ended.
struct UndoRestore {
    let object: NSManagedObject
    let values: [String: Any]
    let source: [String: Any]
}
