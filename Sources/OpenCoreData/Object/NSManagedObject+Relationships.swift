extension NSManagedObject {
    // MARK: Reading relationships

    /// The destination of a to-one relationship, resolved to an object of the context.
    func resolveToOne(at index: Int) -> NSManagedObject? {
        switch toOneValues[index] {
        case .none: return nil
        case .object(let object): return object
        case .id(let objectID):
            guard let context = _context else { return nil }
            let object = context.object(with: objectID)
            toOneValues[index] = .object(object)
            return object
        }
    }

    /// The members of a to-many relationship, loading them if they are a fault.
    func realizedMembers(at index: Int) -> RelationshipMembers {
        if case .members(let members) = toManyValues[index] { return members }
        // A fault's relationships load with its values: members read (or changed) first would be dropped when the
        // fault fires, and a fault has no committed row to read them against (`insert(_:at:)` through
        // `mutableOrderedSetValue(forKey:)` on a fault was lost that way).
        if _isFault, _context != nil {
            fireFaultIfNeeded()
            if case .members(let members) = toManyValues[index] { return members }
        }
        let relationship = layout.toManyRelationships[index]
        let objects = _context?.loadToMany(of: self, relationship: relationship, slot: index) ?? []
        let members = RelationshipMembers(ordered: relationship.isOrdered, members: objects)
        toManyValues[index] = .members(members)
        return members
    }

    /// Changes the realized members of the to-many at `index` (loading them if they are a fault) in place: the slot
    /// lets go of them while `change` runs, so that their set is referenced once and a change copies nothing (a
    /// copy of the whole set per added member made filling a relationship quadratic: 16,000 members took 1.9 s).
    /// `change` must not read the relationship through the object.
    func changeRealizedMembers<Result>(at index: Int, _ change: (inout RelationshipMembers) -> Result) -> Result {
        var members = realizedMembers(at: index)
        toManyValues[index] = .fault
        defer { toManyValues[index] = .members(members) }
        return change(&members)
    }

    /// The IDs of a relationship's destinations, without firing their faults (Apple's
    /// `objectIDs(forRelationshipNamed:)`).
    ///
    /// For example:
    /// ```swift
    /// let moodIDs = country.objectIDs(forRelationshipNamed: "moods")
    /// ```
    public func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
        fireFaultIfNeeded()
        switch slot(for: key) {
        case .toOne(let index, _):
            switch toOneValues[index] {
            case .none: return []
            case .id(let objectID): return [objectID]
            case .object(let object): return [object.objectID]
            }
        case .toMany(let index, _):
            return realizedMembers(at: index).objects.map(\.objectID)
        default:
            preconditionFailure("'\(key)' is not a relationship of entity \(entity.name ?? "?").")
        }
    }

    // MARK: Recording changes (called by didChangeValue)

    /// Records a change of `key` whose previous value was `oldValue`: marks the object updated, keeps the value
    /// from before the event (for undo and `changedValuesForCurrentEvent()`), maintains inverse relationships.
    func recordChange(forKey key: String, oldValue: Any?, in context: NSManagedObjectContext) {
        guard context.changeProcessingSuspended == 0 else { return }
        noteEventOldValue(key, oldValue, in: context)
        switch slot(for: key) {
        case .attribute(let index, _):
            if layout.hasTransientAttributes, layout.attributeIsTransient[index] { noteTransientChange(at: index, fromKVCValue: oldValue) }
            context.noteUpdated(self)
        case .toOne(let index, let relationship):
            let old = oldValue as? NSManagedObject
            let new = resolveToOne(at: index)
            guard old !== new else { return }
            context.noteUpdated(self)
            if let old { GraphMaintenance.unlink(self, relationship, old) }
            if let new { GraphMaintenance.link(self, relationship, new) }
        case .toMany(let index, let relationship):
            let old = (oldValue as? RelationshipMembers) ?? RelationshipMembers(ordered: relationship.isOrdered)
            let new = realizedMembers(at: index)
            let removed = old.objects.filter { !new.contains($0) }
            let added = new.objects.filter { !old.contains($0) }
            guard !removed.isEmpty || !added.isEmpty || (relationship.isOrdered && old.order != new.order) else { return }
            context.noteToManyChanged(self, slot: index)
            for object in removed { GraphMaintenance.unlink(self, relationship, object) }
            for object in added { GraphMaintenance.link(self, relationship, object) }
        case .fetched:
            return
        }
    }

    // MARK: To-many mutation (Xcode's generated accessors and mutable proxies call these)

    /// Adds `object` to the to-many relationship `key` (at `index` for ordered relationships).
    func addMember(_ object: NSManagedObject, toRelationship key: String, at index: Int? = nil) {
        checkObjectConfinement()
        guard case .toMany(let slot, let relationship) = slot(for: key) else {
            preconditionFailure("'\(key)' is not a to-many relationship of entity \(entity.name ?? "?").")
        }
        checkDestination(object, relationship: relationship, key: key)
        let change = changeRealizedMembers(at: slot) { members -> MemberChange in
            if members.contains(object) {
                guard relationship.isOrdered, let index, members.index(of: object) != index else { return .none }
                noteEventOldValue(key, members)
                members.move(object, to: index)
                return .moved
            }
            noteEventOldValue(key, members)
            members.insert(object, at: index)
            return .added
        }
        guard change != .none else { return }
        _context?.noteToManyChanged(self, slot: slot)
        if change == .added { GraphMaintenance.link(self, relationship, object) }
    }

    /// What a change of a to-many's members did.
    private enum MemberChange { case none, added, moved }

    /// Removes `object` from the to-many relationship `key`.
    func removeMember(_ object: NSManagedObject, fromRelationship key: String) {
        checkObjectConfinement()
        guard case .toMany(let slot, let relationship) = slot(for: key) else {
            preconditionFailure("'\(key)' is not a to-many relationship of entity \(entity.name ?? "?").")
        }
        let removed = changeRealizedMembers(at: slot) { members -> Bool in
            guard members.contains(object) else { return false }
            noteEventOldValue(key, members)
            return members.remove(object)
        }
        guard removed else { return }
        _context?.noteToManyChanged(self, slot: slot)
        GraphMaintenance.unlink(self, relationship, object)
    }

    /// Keeps the value a key had when the current event began: the context registers the undo of the whole
    /// event from these values when the event ends (as Apple's does in `processPendingChanges`), and
    /// `changedValuesForCurrentEvent()` reports them. To-many values are kept as `NSSet`/`NSOrderedSet`, nil as
    /// `NSNull`.
    /// `value` is evaluated only when the key has no old value in the event yet (a to-many's members, boxed in `Any`,
    /// took an allocation per change).
    func noteEventOldValue(_ key: String, _ value: @autoclosure () -> Any?) {
        guard let context = _context else { return }
        noteEventOldValue(key, value(), in: context)
    }

    /// ``noteEventOldValue(_:_:)`` with the object's context already loaded (a weak reference, read once per change).
    func noteEventOldValue(_ key: String, _ value: @autoclosure () -> Any?, in context: NSManagedObjectContext) {
        guard let position = layout.slots.position(of: key) else { return }
        noteEventOldValue(at: position, value(), in: context)
    }

    /// ``noteEventOldValue(_:_:in:)`` with the key's position already known; `value` is evaluated only when the
    /// key has no old value in the event yet.
    func noteEventOldValue(at position: Int, _ value: @autoclosure () -> Any?, in context: NSManagedObjectContext) {
        let recorded = eventOldValues.record(Self.eventOldValueForm(of: value()), at: position, in: layout, besides: eventOldAttributes)
        if recorded { noteEventTouched(in: context) }
    }

    /// ``noteEventOldValue(at:_:in:)`` for a setter about to change the plain attribute at slot `index`: its old
    /// value is kept in stored form, converted only if someone asks (``EventOldValues``).
    func noteEventOldAttributeValue(at index: Int, position: Int, in context: NSManagedObjectContext) {
        guard index < EventOldAttributes.slotLimit else {
            return noteEventOldValue(at: position, ValueConversion.kvcValue(attributeValues[index], for: layout.attributes[index]), in: context)
        }
        if eventOldAttributes.record(at: index, from: attributeValues) { noteEventTouched(in: context) }
    }

    /// Puts the object in its context's list of objects with old values in this event (once per event).
    private func noteEventTouched(in context: NSManagedObjectContext) {
        guard !isEventTouched else { return }
        isEventTouched = true
        context.eventTouchedObjects.append(self)
    }

    /// The old values of the event by key (both records; see ``EventOldValues``).
    var eventOldValuesByKey: [String: Any] {
        var result = eventOldAttributes.dictionary(in: layout)
        eventOldValues.merged(into: &result, in: layout)
        return result
    }

    /// Whether the event recorded an old value for the object.
    var hasEventOldValues: Bool { !eventOldAttributes.isEmpty || !eventOldValues.isEmpty }

    /// Forgets the event's old values (the next event records its own).
    func dropEventOldValues() {
        eventOldAttributes = EventOldAttributes()
        eventOldValues = EventOldValues()
    }

    private static func eventOldValueForm(of value: Any?) -> Any {
        switch value {
        case let members as RelationshipMembers:
            return members.isOrdered ? NSOrderedSet(array: members.order) : NSSet(set: members.memberSet)
        case nil:
            return ValueConversion.null
        case let value?:
            return value
        }
    }

    // MARK: Primitive graph edits (inverse maintenance: no undo, no further inverse maintenance)

    /// Sets a to-one relationship of this object directly.
    func primitiveSetToOne(_ relationship: NSRelationshipDescription, to object: NSManagedObject?) {
        fireFaultIfNeeded()
        guard case .toOne(let index, _)? = layout.slots[relationship.name] else { return }
        let current = resolveToOne(at: index)
        guard current !== object else { return }
        noteEventOldValue(relationship.name, current)
        toOneValues[index] = object.map { .object($0) } ?? .none
        _context?.noteUpdated(self)
    }

    /// The destination of a to-one relationship of this object.
    func primitiveToOne(_ relationship: NSRelationshipDescription) -> NSManagedObject? {
        fireFaultIfNeeded()
        guard case .toOne(let index, _)? = layout.slots[relationship.name] else { return nil }
        return resolveToOne(at: index)
    }

    /// Adds or removes a member of a to-many relationship of this object directly.
    /// With `inverseOfChange`, the object is marked changed even if its list already agreed: the other side changed
    /// (a member moved here or away, a pair added or removed), so this object's membership in the store changes with
    /// the save, and it is saved (its version moves) — a list read before another context's change can already
    /// agree, and a context still holding the old version must then conflict on it (a deletion would otherwise miss
    /// the member when applying its delete rules).
    func primitiveChangeMember(_ relationship: NSRelationshipDescription, _ object: NSManagedObject, add: Bool, inverseOfChange: Bool = false) {
        fireFaultIfNeeded()
        guard case .toMany(let index, _)? = layout.slots[relationship.name] else { return }
        let changed = changeRealizedMembers(at: index) { members -> Bool in
            guard members.contains(object) != add else { return false }
            noteEventOldValue(relationship.name, members)
            return add ? members.insert(object) : members.remove(object)
        }
        guard changed || inverseOfChange else { return }
        if !changed, relationship.inverseRelationship?.isToMany == true, var committed = committedToMany[index],
           committed.contains(object.objectID) == add, let context = _context {
            // A many-to-many list read at another time than the other side already agreed, and shows no change of
            // the pair: one of the two sides is stale, and which one is not known. The store says whether the pair is
            // there now, and the committed members take its word for this pair (the rest of the list stays as read).
            // Where the store differs from the list, the change then reads as this side's too: a merge's refresh
            // re-applies it (it was lost, the list read back from the store), a deletion's rules see the member left
            // (stress seed 117), and undoing the change through this side writes the store's pair away (seed 122).
            let stored = context.committedToManyIDs(of: self, relationship: relationship).contains(object.objectID)
            if stored != committed.contains(object.objectID) {
                if stored { committed.append(object.objectID) } else { committed.removeAll { $0 == object.objectID } }
                committedToMany[index] = committed
            }
        }
        _context?.noteToManyChanged(self, slot: index)
    }
}

/// Keeps both sides of a relationship consistent when one side changes (Core Data's inverse maintenance).
enum GraphMaintenance {
    /// `source.relationship` now contains `destination`: make the inverse side agree.
    static func link(_ source: NSManagedObject, _ relationship: NSRelationshipDescription, _ destination: NSManagedObject) {
        guard let inverse = relationship.inverseRelationship else { return }
        if inverse.isToMany {
            destination.noteInverseWillChange()
            destination.primitiveChangeMember(inverse, source, add: true, inverseOfChange: true)
            return
        }
        let previous = destination.primitiveToOne(inverse)
        guard previous !== source else {
            // The destination already named the source (its row read before the source's list, or the other way
            // round): the membership lives in the destination's row, so it is saved, and conflicts if it moved since.
            if relationship.isToMany { destination._context?.noteUpdated(destination) }
            return
        }
        destination.noteInverseWillChange()
        destination.primitiveSetToOne(inverse, to: source)
        // The destination pointed back at another object: that object no longer holds the destination.
        if let previous, previous !== destination {
            previous.noteInverseWillChange()
            if relationship.isToMany {
                previous.primitiveChangeMember(relationship, destination, add: false, inverseOfChange: true)
            } else if previous.primitiveToOne(relationship) === destination {
                previous.primitiveSetToOne(relationship, to: nil)
            }
        }
    }

    /// `source.relationship` no longer contains `destination`: make the inverse side agree.
    static func unlink(_ source: NSManagedObject, _ relationship: NSRelationshipDescription, _ destination: NSManagedObject) {
        guard let inverse = relationship.inverseRelationship else { return }
        if inverse.isToMany {
            destination.noteInverseWillChange()
            destination.primitiveChangeMember(inverse, source, add: false, inverseOfChange: true)
        } else if destination.primitiveToOne(inverse) === source {
            destination.noteInverseWillChange()
            destination.primitiveSetToOne(inverse, to: nil)
        }
    }
}
