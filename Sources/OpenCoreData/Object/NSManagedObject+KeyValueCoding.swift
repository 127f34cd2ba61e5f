extension NSManagedObject {
    // MARK: Key-value coding

    /// The implementation of `value` (the overridable method is declared in the class body).
    func valueImpl(forKey key: String) -> Any? {
        // `entity` is a property of every managed object, as Apple's key-value coding finds it (unless the entity
        // has a property of that name).
        if key == "entity", layout.slots[key] == nil { return entity }
        // `self` is the object itself, as NSObject's key-value coding answers (`self == %@` evaluated in memory).
        if key == "self", layout.slots[key] == nil { return self }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        return primitiveValue(forKey: key)
    }

    /// The implementation of `setValue` (the overridable method is declared in the class body).
    func setValueImpl(_ value: Any?, forKey key: String) {
        willChangeValue(forKey: key)
        setPrimitiveValue(value, forKey: key)
        didChangeValue(forKey: key)
    }

    /// Reads or writes a property by key (`mood["rating"]`), like `value(forKey:)` and `setValue(_:forKey:)`.
    public subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    /// The implementation of `value` (the overridable method is declared in the class body).
    func valueImpl(forKeyPath keyPath: String) -> Any? {
        guard let dot = keyPath.firstIndex(of: "."), !keyPath.hasPrefix("@") else {
            return keyPath.hasPrefix("@") ? KeyPathValues.value(of: self, keyPath: keyPath) : value(forKey: keyPath)
        }
        let first = String(keyPath[..<dot])
        let rest = String(keyPath[keyPath.index(after: dot)...])
        return KeyPathValues.value(of: value(forKey: first), keyPath: rest)
    }

    /// The implementation of `setValue` (the overridable method is declared in the class body).
    func setValueImpl(_ value: Any?, forKeyPath keyPath: String) {
        guard let dot = keyPath.lastIndex(of: ".") else { return setValue(value, forKey: keyPath) }
        let target = self.value(forKeyPath: String(keyPath[..<dot]))
        guard let object = target as? NSManagedObject else {
            preconditionFailure("Cannot set '\(keyPath)' on \(entity.name ?? "?"): '\(keyPath[..<dot])' is not a managed object.")
        }
        object.setValue(value, forKey: String(keyPath[keyPath.index(after: dot)...]))
    }

    // MARK: Primitive values

    /// The implementation of `primitiveValue` (the overridable method is declared in the class body).
    func primitiveValueImpl(forKey key: String) -> Any? {
        if isKeyPathProbe { return KeyPathRecorder.probeValue(forKey: key, of: self) }
        fireFaultIfNeeded()
        switch slot(for: key) {
        case .attribute(let index, let attribute):
            if attribute.attributeType == .transformableAttributeType { return transformedValue(at: index, attribute: attribute) }
            return ValueConversion.kvcValue(attributeValues[index], for: attribute)
        case .toOne(let index, _):
            return resolveToOne(at: index)
        case .toMany(let index, let relationship):
            let members = realizedMembers(at: index)
            return relationship.isOrdered ? NSOrderedSet(array: members.order) : NSSet(set: members.memberSet)
        case .fetched(let property):
            return fetchedPropertyValue(property)
        }
    }

    /// The implementation of `setPrimitiveValue` (the overridable method is declared in the class body).
    func setPrimitiveValueImpl(_ value: Any?, forKey key: String) {
        if isKeyPathProbe { return }
        fireFaultIfNeeded()
        switch slot(for: key) {
        case .attribute(let index, let attribute):
            if attribute.attributeType == .transformableAttributeType {
                transformedValues[index] = ValueConversion.isNull(value) ? nil : value
                attributeValues[index] = .null  // the data is produced at save
                return
            }
            guard let stored = ValueConversion.storedValue(fromKVC: value, for: attribute) else {
                preconditionFailure("Unacceptable type of value for attribute: property = \"\(key)\"; desired type = \(ValueConversion.expectedKinds(attribute)); given type = \(ValueConversion.typeName(value)); value = \(value.map { "\($0)" } ?? "nil") (entity \(entity.name ?? "?")).")
            }
            attributeValues[index] = stored
        case .toOne(let index, let relationship):
            toOneValues[index] = toOneValue(from: value, relationship: relationship, key: key)
        case .toMany(let index, let relationship):
            let objects = members(from: value, relationship: relationship, key: key)
            toManyValues[index] = .members(RelationshipMembers(ordered: relationship.isOrdered, members: objects))
        case .fetched(let property):
            preconditionFailure("The fetched property '\(property.name)' of entity \(entity.name ?? "?") is read-only.")
        }
    }

    // MARK: Access and change notifications

    /// The implementation of `willAccessValue` (the overridable method is declared in the class body).
    func willAccessValueImpl(forKey key: String?) {
        if isKeyPathProbe { if let key { KeyPathRecorder.record(key) }; return }
        checkObjectConfinement()
        fireFaultIfNeeded()
    }

    /// The implementation of `willChangeValue` (the overridable method is declared in the class body).
    func willChangeValueImpl(forKey key: String) {
        if isKeyPathProbe { return }
        checkObjectConfinement()
        fireFaultIfNeeded()
        guard let context = _context else {   // outside a context no change is recorded; observers are told
            if hasKeyValueObservers { notifyObserversWillChange(key) }
            return
        }
        if let index = context.pendingChanges.firstIndex(where: { $0.object === self && $0.key == key }) {
            context.pendingChanges[index].depth += 1
            return
        }
        if hasKeyValueObservers { notifyObserversWillChange(key) }
        context.pendingChanges.append(PendingChange(object: self, key: key, oldValue: currentValueForChangeTracking(key), depth: 1))
    }

    /// The implementation of `didChangeValue` (the overridable method is declared in the class body).
    func didChangeValueImpl(forKey key: String) {
        if isKeyPathProbe { return }
        guard let context = _context else {
            if hasKeyValueObservers { notifyObserversDidChange(key) }
            return
        }
        guard let index = context.pendingChanges.firstIndex(where: { $0.object === self && $0.key == key }) else { return }
        context.pendingChanges[index].depth -= 1
        if context.pendingChanges[index].depth > 0 { return }
        let pending = context.pendingChanges.remove(at: index)
        recordChange(forKey: key, oldValue: pending.oldValue, in: context)
        if hasKeyValueObservers { notifyObserversDidChange(key) }
    }

    /// A `@Managed` setter's change of the plain attribute at `index` (property `position`) for a class that
    /// tracks changes like the base class (``tracksChangesDirectly``): what `willChangeValue(forKey:)`, storing the
    /// value and `didChangeValue(forKey:)` do, without the context's list of open changes, with the key resolved
    /// once and the old value converted only when the event has none for the key yet.
    func setAttributeTrackingChange(_ stored: StoredValue, at index: Int, position: Int, key: String) {
        checkObjectConfinement()
        fireFaultIfNeeded()
        guard let context = _context, context.pendingChanges.isEmpty, !hasKeyValueObservers else {
            // Outside a context nothing is tracked; inside a will/did pair someone opened, the pair's depth counts; an
            // observed object's observers are told through the pair.
            willChangeValueImpl(forKey: key)
            attributeValues[index] = stored
            didChangeValueImpl(forKey: key)
            return
        }
        guard context.changeProcessingSuspended == 0 else {
            attributeValues[index] = stored
            return
        }
        noteEventOldAttributeValue(at: index, position: position, in: context)
        if layout.hasTransientAttributes, layout.attributeIsTransient[index] { noteTransientChange(at: index, from: .stored(attributeValues[index])) }
        attributeValues[index] = stored
        context.noteUpdated(self)
    }

    // MARK: Internals

    /// The slot of `key`, or stops the program for an unknown key (Apple raises NSUnknownKeyException).
    func slot(for key: String) -> EntityLayout.Slot {
        guard let slot = layout.slots[key] else {
            preconditionFailure("[<\(type(of: self)) \(Unmanaged.passUnretained(self).toOpaque())> valueForUndefinedKey:]: the entity \(entity.name ?? "?") is not key value coding-compliant for the key \"\(key)\".")
        }
        return slot
    }

    /// In concurrency debug mode, stops the program when the object is used off its context's queue.
    @inline(__always)
    func checkObjectConfinement(_ function: StaticString = #function) {
        guard ConcurrencyDebug.isEnabled, let context = _context, !context.isOnQueue else { return }
        ConcurrencyDebug.violation("\(entity.name ?? "?") \(_objectID) used off its context's queue in \(function)")
    }

    /// The current value of a key in the form change tracking compares and undo restores.
    func currentValueForChangeTracking(_ key: String) -> Any? {
        switch slot(for: key) {
        case .toMany(let index, _):
            return realizedMembers(at: index)
        default:
            return primitiveValue(forKey: key)
        }
    }

    /// A to-one value from what KVC was given.
    func toOneValue(from value: Any?, relationship: NSRelationshipDescription, key: String) -> ToOneValue {
        guard let value, !ValueConversion.isNull(value) else { return .none }
        guard let object = value as? NSManagedObject else {
            preconditionFailure("Unacceptable type of value for to-one relationship: property = \"\(key)\"; desired type = \(relationship.destinationEntity?.name ?? "?"); given type = \(ValueConversion.typeName(value)) (entity \(entity.name ?? "?")).")
        }
        checkDestination(object, relationship: relationship, key: key)
        return .object(object)
    }

    /// The objects of a to-many value from what KVC was given.
    func members(from value: Any?, relationship: NSRelationshipDescription, key: String) -> [NSManagedObject] {
        guard let value, !ValueConversion.isNull(value) else { return [] }
        let elements: [Any]
        switch value {
        case let set as NSSet: elements = set.allObjects
        case let ordered as NSOrderedSet: elements = ordered.array
        case let array as NSArray: elements = array.map { $0 }
        case let sequence as any Sequence: elements = Array(sequence)
        default:
            preconditionFailure("Unacceptable type of value for to-many relationship: property = \"\(key)\"; desired type = NSSet, NSOrderedSet or Set of \(relationship.destinationEntity?.name ?? "?"); given type = \(ValueConversion.typeName(value)) (entity \(entity.name ?? "?")).")
        }
        return elements.map { element in
            guard let object = element as? NSManagedObject else {
                preconditionFailure("Unacceptable object in to-many relationship \"\(key)\" of entity \(entity.name ?? "?"): \(ValueConversion.typeName(element)) is not a managed object.")
            }
            checkDestination(object, relationship: relationship, key: key)
            return object
        }
    }

    /// Stops the program if `object` is not of the relationship's destination entity or lives in another context.
    func checkDestination(_ object: NSManagedObject, relationship: NSRelationshipDescription, key: String) {
        if let destination = relationship.destinationEntity, !object.entity.isKindOf(entity: destination) {
            preconditionFailure("Unacceptable type of value for relationship: property = \"\(key)\"; desired type = \(destination.name ?? "?"); given type = \(object.entity.name ?? "?") (entity \(entity.name ?? "?")).")
        }
        if let mine = _context, let theirs = object._context, mine !== theirs {
            preconditionFailure("Illegal attempt to establish a relationship '\(key)' between objects in different contexts (\(objectID) and \(object.objectID)).")
        }
    }
}

/// Key-path evaluation below the first key (through objects, collections and collection operators).
enum KeyPathValues {
    /// The rest of a key path on a value: a managed object's own `value(forKeyPath:)` (whose attribute values are
    /// already `NSNumber`s), else key-value coding on the value, whose computed numbers (collection operators, string
    /// lengths) come back as Apple's do, as `NSNumber`s (`FoundationBridging`).
    static func value(of root: Any?, keyPath: String) -> Any? {
        guard let root else { return nil }
        if let object = root as? NSManagedObject, !keyPath.hasPrefix("@") { return object.value(forKeyPath: keyPath) }
        do {
            return FoundationBridging.object(try KeyValueCodingEngine.value(of: root, forKeyPath: keyPath))
        } catch {
            preconditionFailure(PredicateError.message(of: error))
        }
    }
}

/// Kinds of set mutation for `willChangeValue(forKey:withSetMutation:using:)`.
public enum NSKeyValueSetMutationKind: UInt, Sendable {
    case union = 1
    case minus = 2
    case intersect = 3
    case set = 4
}
