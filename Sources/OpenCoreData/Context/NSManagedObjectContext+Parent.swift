/// Parent and child contexts. A child's "store" is its parent: its faults fire with the parent's current values
/// (unsaved changes included), its fetches run in the parent (so they see the parent's unsaved state), and its
/// saves push its changes into the parent, which saves them to the store when it saves itself. Objects inserted
/// in a child keep their temporary IDs after a child save; the parent remembers the permanent IDs its own saves
/// gave them, so the child can keep using the temporary ones.
///
/// For example:
/// ```swift
/// let editor = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
/// editor.parent = viewContext
/// try editor.performAndWait {
///     let mood = try editor.existingObject(with: moodID) as! Mood
///     mood.rating = 5
///     try editor.save()                 // viewContext now has the change, unsaved
/// }
/// try viewContext.performAndWait { try viewContext.save() }   // now it is in the store
/// ```
extension NSManagedObjectContext {
    // MARK: Serving a child (run on this context's queue)

    /// The ID this context uses for `objectID` (a temporary ID its save has since made permanent is mapped).
    func currentID(for objectID: NSManagedObjectID) -> NSManagedObjectID {
        var id = objectID
        while let newer = replacedTemporaryIDs[id] { id = newer }
        return id
    }

    /// The values a child sees for an object: this context's current values (unsaved changes included), or nil
    /// when the object is deleted here or does not exist.
    func snapshotForChild(_ objectID: NSManagedObjectID) throws -> ObjectSnapshot? {
        servesChildren = true
        let id = currentID(for: objectID)
        if let object = registry[id] {
            if object._isDeleted { return nil }
            if object._isFault, try !loadValues(into: object, failIfMissing: false) { return nil }
            return object.snapshotForSave()
        }
        return try snapshot(for: id)
    }

    /// The members of a to-many relationship as this context has them, for a child.
    func memberIDsForChild(_ objectID: NSManagedObjectID, relationship: NSRelationshipDescription) throws -> [NSManagedObjectID] {
        let object = self.object(with: currentID(for: objectID))
        if object._isFault, try !loadValues(into: object, failIfMissing: false) { return [] }
        guard case .toMany(let slot, _)? = object.layout.slots[relationship.name] else { return [] }
        return object.realizedMembers(at: slot).objects.filter { !$0._isDeleted }.map(\.objectID)
    }

    /// Runs a child's fetch here: the matching object IDs, this context's unsaved changes included.
    func objectIDsForChild(entity: NSEntityDescription, predicate: NSPredicate?, sortDescriptors: [NSSortDescriptor],
                           includesSubentities: Bool, fetchLimit: Int, fetchOffset: Int,
                           affectedStores: [NSPersistentStore]? = nil) throws -> [NSManagedObjectID] {
        servesChildren = true
        let request = NSFetchRequest<NSManagedObjectID>()
        request.affectedStores = affectedStores
        request.entity = entity
        request.predicate = predicate.map { predicate in
            PredicateRewriting.rewrite(predicate) { value in
                if let objectID = value as? NSManagedObjectID { return self.currentID(for: objectID) }
                return value
            }
        }
        request.sortDescriptors = sortDescriptors
        request.includesSubentities = includesSubentities
        request.fetchLimit = fetchLimit
        request.fetchOffset = fetchOffset
        request.resultType = .managedObjectIDResultType
        return try fetch(request)
    }

    // MARK: Using the parent (run on the child's queue)

    /// An object's values from the parent.
    func snapshotFromParent(_ parent: NSManagedObjectContext, _ objectID: NSManagedObjectID) throws -> ObjectSnapshot? {
        try parent.performAndWait { try parent.snapshotForChild(objectID) }
    }

    /// A to-many relationship's members from the parent.
    func memberIDsFromParent(_ parent: NSManagedObjectContext, _ objectID: NSManagedObjectID, _ relationship: NSRelationshipDescription) throws -> [NSManagedObjectID] {
        try parent.performAndWait { try parent.memberIDsForChild(objectID, relationship: relationship) }
    }

    // MARK: Saving into the parent

    /// One object's changes as the parent receives them.
    private struct PushedObject {
        var objectID: NSManagedObjectID
        var isInsert: Bool
        var attributes: [String: Any] = [:]
        var toOne: [String: NSManagedObjectID?] = [:]
        var toMany: [String: PushedMembers] = [:]
    }

    /// A to-many relationship's change as the parent receives it: the members the child added and removed against
    /// those it read, and for an ordered relationship the child's order. The parent puts the change on top of its own
    /// members (``MemberMerge``), so that members the parent gained or lost since the child read them (its own
    /// changes, a merge, a deletion) are not undone.
    private struct PushedMembers {
        var added: [NSManagedObjectID]
        var removed: [NSManagedObjectID]
        var order: [NSManagedObjectID]?
        /// The child's members as a whole (the child never read the parent's: an inserted object).
        var replacesAll: Bool
    }

    /// Pushes the context's changes into its parent (a child's `save()`); the parent's objects change as if edited
    /// there (they are in its `updatedObjects`/`insertedObjects`/`deletedObjects` until it saves).
    func saveToParent(_ parent: NSManagedObjectContext) throws {
        let inserted = insertedSet.filter { !$0._isDeleted }
        let updated = updatedSet.filter { !$0._isInserted && !$0._isDeleted }
        let deleted = deletedSet.filter { !$0._isInserted }
        let pushes = inserted.map { pushed($0, isInsert: true) } + updated.map { pushed($0, isInsert: false) }
        let deletedIDs = deleted.map(\.objectID)
        let assignments = storeAssignments   // assign(_:to:) choices travel with the inserted objects
        try parent.performAndWait {
            parent.storeAssignments.merge(assignments) { _, child in child }
            try parent.receive(pushes, deleted: deletedIDs)
        }
        // Here the objects are now saved (into the parent): no changes, the pushed values committed.
        for object in inserted + updated {
            object.committedSnapshot = object.snapshotForSave()
            for (index, value) in object.toManyValues.enumerated() {
                if case .members(let members) = value { object.committedToMany[index] = members.objects.map(\.objectID) }
            }
            object.dirtyToManySlots = []
            object.transientsBeforeChanges = [:]
            object.lifeCycle.save()
        }
        for object in deleted + insertedSet.filter(\._isDeleted) {
            registry[object.objectID] = nil
            object.lifeCycle.leaveContext()
            object._context = nil
        }
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        unpropagatedDeletes.removeAll()
        deletionsWithMergedRows.removeAll()
        for object in inserted + updated { releaseIfUnchanged(object) }
        for object in inserted + updated + deleted { object.didSave() }
        postNotification(.NSManagedObjectContextDidSave, userInfo: [
            NSInsertedObjectsKey: Set(inserted), NSUpdatedObjectsKey: Set(updated), NSDeletedObjectsKey: Set(deleted),
        ])
        postNotification(.NSManagedObjectContextDidSaveObjectIDs, userInfo: [
            NSInsertedObjectIDsKey: Set(inserted.map(\.objectID)), NSUpdatedObjectIDsKey: Set(updated.map(\.objectID)), NSDeletedObjectIDsKey: Set(deletedIDs),
        ])
    }

    /// The values of `object` to push: all of them for an insert, the changed ones for an update — transient
    /// attributes included (those changed since the object was fetched or saved), as Apple's child saves push every
    /// change into the parent.
    private func pushed(_ object: NSManagedObject, isInsert: Bool) -> PushedObject {
        var push = PushedObject(objectID: object.objectID, isInsert: isInsert)
        let changed = isInsert ? nil : Set(object.changedValues().keys)
        let layout = object.layout
        for attribute in layout.attributes where !attribute.isTransient && (changed?.contains(attribute.name) ?? true) {
            push.attributes[attribute.name] = object.primitiveValue(forKey: attribute.name) ?? NSNull()
        }
        if layout.hasTransientAttributes {
            let changedTransients = object.changedTransientSlots
            for (slot, attribute) in layout.attributes.enumerated() where attribute.isTransient && (isInsert || changedTransients.contains(slot)) {
                push.attributes[attribute.name] = object.primitiveValue(forKey: attribute.name) ?? NSNull()
            }
        }
        for (index, relationship) in layout.toOneRelationships.enumerated() where !relationship.isTransient && (changed?.contains(relationship.name) ?? true) {
            push.toOne[relationship.name] = object.toOneID(at: index)
        }
        for (index, relationship) in layout.toManyRelationships.enumerated() where !relationship.isTransient {
            guard isInsert || object.dirtyToManySlots.contains(index), case .members(let members) = object.toManyValues[index] else { continue }
            let current = members.objects.filter { !$0._isDeleted }.map(\.objectID)
            guard !isInsert, let committed = object.committedToMany[index] else {
                push.toMany[relationship.name] = PushedMembers(added: current, removed: [], order: current, replacesAll: true)
                continue
            }
            let currentSet = Set(current), committedSet = Set(committed)
            push.toMany[relationship.name] = PushedMembers(
                added: current.filter { !committedSet.contains($0) }, removed: committed.filter { !currentSet.contains($0) },
                order: relationship.isOrdered ? current : nil, replacesAll: false)
        }
        return push
    }

    /// Applies a child's save here (on this context's queue): new objects first (under the child's IDs), then
    /// every pushed value, then deletions. Undo is not registered for them: they are the child's edits.
    private func receive(_ pushes: [PushedObject], deleted: [NSManagedObjectID]) throws {
        servesChildren = true
        let undo = undoManager
        undo?.disableUndoRegistration()
        defer {
            processPendingChangesInternal()
            undo?.enableUndoRegistration()
        }
        for push in pushes where push.isInsert && registry[currentID(for: push.objectID)] == nil {
            let object = ManagedObjectFactory.makeFault(for: push.objectID, classes: faultClasses)
            object.lifeCycle.load()
            object.hasAwakenedFromInsert = true
            insert(object)
        }
        for push in pushes {
            let object = self.object(with: currentID(for: push.objectID))
            if object._isDeleted { continue }
            for (key, value) in push.attributes { object.setValue(ValueConversion.isNull(value) ? nil : value, forKey: key) }
            for (key, id) in push.toOne { object.setValue(id.map { self.object(with: currentID(for: $0)) }, forKey: key) }
            for (key, change) in push.toMany {
                let ordered = object.entity.relationshipsByName[key]?.isOrdered ?? false
                let objects = { (ids: [NSManagedObjectID]) in ids.map { self.object(with: self.currentID(for: $0)) }.filter { !$0._isDeleted } }
                let members: [NSManagedObject]
                if change.replacesAll {
                    members = objects(change.added)
                } else {
                    let base = object.value(forKey: key).map { value in
                        ((value as? NSOrderedSet)?.array ?? (value as? NSSet)?.allObjects ?? []).compactMap { $0 as? NSManagedObject }
                    } ?? []
                    members = MemberMerge.apply(added: objects(change.added), removed: Set(change.removed.map { currentID(for: $0) }),
                                                order: change.order.map(objects), to: base)
                }
                object.setValue(ordered ? NSOrderedSet(array: members) as Any : NSSet(array: members) as Any, forKey: key)
            }
        }
        for objectID in deleted {
            let object = self.object(with: currentID(for: objectID))
            if object._isFault, try !loadValues(into: object, failIfMissing: false) { continue }
            delete(object)
        }
    }

    // MARK: Permanent IDs through the chain

    /// Moves this context's object (if any) from a temporary to a permanent ID, then its parent's.
    func adoptPermanentID(_ newID: NSManagedObjectID, replacing oldID: NSManagedObjectID) {
        if let object = registry[oldID] { reassign(object, to: newID) }
        replacedTemporaryIDs[oldID] = newID
        if let parent = _parent {
            parent.performAndWait { parent.adoptPermanentID(newID, replacing: oldID) }
        }
    }
}
