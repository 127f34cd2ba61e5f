extension NSManagedObject {
    // MARK: Faults

    /// Loads the object's values if it is a fault.
    @inline(__always)
    func fireFaultIfNeeded() {
        if _isFault, let context = _context { context.fireFault(self) }
    }

    /// Puts values from a snapshot into the object (it stops being a fault); its transient attributes get their
    /// default values (``applyKeepingTransients(_:)`` keeps them).
    func apply(_ snapshot: consuming ObjectSnapshot) {
        attributeValues = snapshot.attributes
        toOneValues = snapshot.toOne.map { $0.map { .id($0) } ?? .none }
        toManyValues = layout.faultToManyValues
        transformedValues = [:]
        committedSnapshot = snapshot
        committedToMany = [:]
        lifeCycle.load()
        if layout.hasTransientAttributes { setTransientsToDefaults() }
    }

    /// Turns the object into a fault (its values are dropped and reloaded on next access).
    func turnIntoFault() {
        guard !_isFault else { return }
        willTurnIntoFault()
        attributeValues = layout.faultAttributes
        toOneValues = layout.faultToOneValues
        toManyValues = layout.faultToManyValues
        transformedValues = [:]
        transientsBeforeChanges = [:]
        dropEventOldValues()
        lifeCycle.turnIntoFault()
        didTurnIntoFault()
    }

    /// Turns the object into a fault and forgets its update, when its changes no longer matter (its context was
    /// reset, its row was deleted elsewhere): a fault has no unsaved changes (``ObjectLifeCycle``).
    func discardUpdateAndTurnIntoFault() {
        lifeCycle.discardUpdate()
        turnIntoFault()
    }

    // MARK: Changed values

    /// The persistent properties changed since the object was last fetched or saved, with their new values.
    ///
    /// Only an object the context tracks as changed (inserted, updated or deleted) has changed values: a value stored
    /// with `setPrimitiveValue(_:forKey:)` alone, without `willChangeValue(forKey:)`/`didChangeValue(forKey:)`
    /// around it, is no change (as on Apple's platforms, it is not saved either). On a changed object every persistent
    /// property that differs from its saved value is listed, primitive sets included.
    ///
    /// For example:
    /// ```swift
    /// mood.rating = 5
    /// mood.changedValues()   // ["rating": 5]
    /// ```
    public func changedValues() -> [String: Any] {
        guard !_isFault, lifeCycle.hasChanges else { return [:] }
        var changes: [String: Any] = [:]
        let committed = committedSnapshot
        for (index, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            if attribute.attributeType == .transformableAttributeType {
                if let value = transformedValues[index], committed == nil || transformedChanged(index, attribute: attribute) {
                    changes[attribute.name] = value
                } else if committed != nil, transformedValues[index] == nil, transformedChanged(index, attribute: attribute) {
                    changes[attribute.name] = NSNull()
                }
                continue
            }
            let current = attributeValues[index]
            if let committed {
                if committed.attributes[index] != current { changes[attribute.name] = ValueConversion.kvcValue(current, for: attribute) ?? NSNull() }
            } else if !current.isNull {
                changes[attribute.name] = ValueConversion.kvcValue(current, for: attribute)!
            }
        }
        for (index, relationship) in layout.toOneRelationships.enumerated() {
            let currentID = toOneID(at: index)
            let committedID = committed?.toOne[index] ?? nil
            if currentID != committedID || (currentID == nil && committed == nil && !isNone(index)) {
                changes[relationship.name] = resolveToOne(at: index) ?? NSNull()
            }
        }
        for (index, relationship) in layout.toManyRelationships.enumerated() {
            guard case .members(let members) = toManyValues[index] else { continue }
            let committedIDs = committedToMany[index] ?? (committed == nil ? [] : nil)
            guard let committedIDs else { continue }
            let current = members.objects.map(\.objectID)
            let changed = relationship.isOrdered ? current != committedIDs : Set(current) != Set(committedIDs)
            if changed {
                changes[relationship.name] = relationship.isOrdered ? NSOrderedSet(array: members.order) : NSSet(set: members.memberSet)
            }
        }
        return changes
    }

    /// The properties changed during the current event, with their values from before the event.
    public func changedValuesForCurrentEvent() -> [String: Any] {
        eventOldValuesByKey
    }

    /// The values of `keys` (all persistent properties when nil) as the store last had them.
    ///
    /// For example:
    /// ```swift
    /// mood.committedValues(forKeys: ["rating"])   // ["rating": 3]
    /// ```
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        fireFaultIfNeeded()
        guard let committed = committedSnapshot ?? (_isInserted ? nil : _context?.cachedSnapshot(for: objectID)) else { return [:] }
        var values: [String: Any] = [:]
        let wanted = keys.map(Set.init)
        for (index, attribute) in layout.attributes.enumerated() where !attribute.isTransient && (wanted?.contains(attribute.name) ?? true) {
            if attribute.attributeType == .transformableAttributeType {
                values[attribute.name] = TransformableValues.object(from: committed.attributes[index], attribute: attribute) ?? NSNull()
            } else {
                values[attribute.name] = ValueConversion.kvcValue(committed.attributes[index], for: attribute) ?? NSNull()
            }
        }
        for (index, relationship) in layout.toOneRelationships.enumerated() where wanted?.contains(relationship.name) ?? true {
            values[relationship.name] = committed.toOne[index].flatMap { _context?.object(with: $0) } ?? NSNull()
        }
        for (index, relationship) in layout.toManyRelationships.enumerated() where wanted?.contains(relationship.name) ?? true {
            let ids = committedToMany[index] ?? _context?.committedToManyIDs(of: self, relationship: relationship) ?? []
            let objects = ids.compactMap { _context?.object(with: $0) }
            values[relationship.name] = relationship.isOrdered ? NSOrderedSet(array: objects) : NSSet(array: objects)
        }
        return values
    }

    /// Whether the object's persistent values differ from its committed values.
    public var hasPersistentChangedValues: Bool {
        _isInserted || !changedValues().isEmpty
    }

    // MARK: Helpers

    /// The ID of a to-one destination.
    func toOneID(at index: Int) -> NSManagedObjectID? {
        switch toOneValues[index] {
        case .none: return nil
        case .id(let objectID): return objectID
        case .object(let object): return object.objectID
        }
    }

    private func isNone(_ index: Int) -> Bool {
        if case .none = toOneValues[index] { return true }
        return false
    }

    /// Whether a transformable attribute's object differs from its committed data.
    private func transformedChanged(_ index: Int, attribute: NSAttributeDescription) -> Bool {
        guard let committed = committedSnapshot else { return transformedValues[index] != nil }
        let current = TransformableValues.storedValue(from: transformedValues[index], attribute: attribute)
        return current != committed.attributes[index]
    }
}

// MARK: Undo

extension NSManagedObject {
    /// The value of `key` in the form the undo of an event keeps (`NSSet`/`NSOrderedSet` for to-many
    /// relationships, `NSNull` for nil).
    func valueForUndo(forKey key: String) -> Any {
        switch currentValueForChangeTracking(key) {
        case let members as RelationshipMembers:
            return members.isOrdered ? NSOrderedSet(array: members.order) : NSSet(set: members.memberSet)
        case let value?:
            return value
        case nil:
            return NSNull()
        }
    }

    /// Whether `key` names a to-many relationship.
    func isToManyKey(_ key: String) -> Bool {
        if case .toMany? = layout.slots[key] { return true }
        return false
    }

    /// Puts back a value kept by ``valueForUndo(forKey:)``: the object is marked changed, but neither inverse
    /// maintenance nor undo registration happens (the undo of an event restores every object it touched).
    ///
    /// A to-many value with `source` (the members when the undone change ended) puts back that change only: members
    /// in `source` and not in `value` leave, members in `value` and not in `source` return (an ordered relationship
    /// takes `value`'s order for them), and the others stay as they are now.
    func restoreValueForUndo(_ value: Any, forKey key: String, changedFrom source: Any? = nil) {
        fireFaultIfNeeded()
        let newValue: Any? = ValueConversion.isNull(value) ? nil : value
        switch slot(for: key) {
        case .attribute:
            setPrimitiveValue(newValue, forKey: key)
            _context?.noteUpdated(self)
        case .toOne(let index, _):
            toOneValues[index] = (newValue as? NSManagedObject).map { .object($0) } ?? .none
            _context?.noteUpdated(self)
        case .toMany(let index, let relationship):
            let objects = Self.undoMembers(newValue)
            var restored = objects
            if let source {
                let sourceObjects = Self.undoMembers(source)
                let target = Set(objects.map(ObjectIdentifier.init)), from = Set(sourceObjects.map(ObjectIdentifier.init))
                let removed = Set(sourceObjects.filter { !target.contains(ObjectIdentifier($0)) }.map(\.objectID))
                let added = objects.filter { !from.contains(ObjectIdentifier($0)) }
                restored = MemberMerge.apply(added: added, removed: removed, order: relationship.isOrdered ? objects : nil,
                                             to: realizedMembers(at: index).objects)
            }
            toManyValues[index] = .members(RelationshipMembers(ordered: relationship.isOrdered, members: restored))
            _context?.noteToManyChanged(self, slot: index)
        case .fetched:
            return
        }
    }

    /// The members of a to-many value kept for undo (`NSSet` or `NSOrderedSet`).
    private static func undoMembers(_ value: Any?) -> [NSManagedObject] {
        switch value {
        case let ordered as NSOrderedSet: ordered.array.compactMap { $0 as? NSManagedObject }
        case let set as NSSet: set.allObjects.compactMap { $0 as? NSManagedObject }
        default: []
        }
    }
}
