// The runtime entry points the `@Managed` macro expands to (public but not API: the underscore says so).

extension NSManagedObject {
    /// The getter of a `@Managed` property: fires the fault, sends access notifications and converts the value
    /// to the property's type.
    public func _managedValue<Value>(forKey key: String) -> Value {
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        if isKeyPathProbe { return KeyPathRecorder.placeholder(Value.self) }
        return _managedPrimitiveValue(forKey: key)
    }

    /// The setter of a `@Managed` property: `willChangeValue`, store, `didChangeValue` (tracking, undo, inverses).
    public func _setManagedValue<Value>(_ value: Value, forKey key: String) {
        setValue(Self.unwrapped(value), forKey: key)
    }

    /// The getter of a `@Managed var primitiveX` property.
    public func _managedPrimitiveValue<Value>(forKey key: String) -> Value {
        if isKeyPathProbe { return KeyPathRecorder.placeholder(Value.self) }
        fireFaultIfNeeded()
        switch slot(for: key) {
        case .attribute(let index, let attribute):
            if attribute.attributeType != .transformableAttributeType, let converted = Self.converted(attributeValues[index], to: Value.self) {
                return converted
            }
        case .toMany(let index, _):
            if let setType = Value.self as? ManagedToManySet.Type {
                var members = realizedMembers(at: index)
                if let set = members.propertySet as? Value { return set }
                // An unordered relationship's member set is read as it is (no intermediate array).
                let set = members.isOrdered ? setType.init(managedMembers: members.order) : setType.init(managedMembers: members.memberSet)
                if let set = set as? Value {
                    members.propertySet = set
                    toManyValues[index] = .members(members)
                    return set
                }
            }
        case .toOne, .fetched:
            break
        }
        return Self.cast(primitiveValue(forKey: key), to: Value.self, key: key, entity: entity)
    }

    /// The setter of a `@Managed var primitiveX` property.
    public func _setManagedPrimitiveValue<Value>(_ value: Value, forKey key: String) {
        setPrimitiveValue(Self.unwrapped(value), forKey: key)
    }

    // MARK: Relationship accessor methods (Xcode's generated addTo…/removeFrom…/insertInto…/replace…)

    /// `addToX(_ value:)`.
    public func _addManagedObject(_ value: NSManagedObject, toRelationship key: String) {
        addMember(value, toRelationship: key)
    }

    /// `addToX(_ values: NSSet)`.
    public func _addManagedObjects(_ values: NSSet, toRelationship key: String) {
        for case let object as NSManagedObject in values.allObjects { addMember(object, toRelationship: key) }
    }

    /// `addToX(_ values: NSOrderedSet)`.
    public func _addManagedObjects(_ values: NSOrderedSet, toRelationship key: String) {
        for case let object as NSManagedObject in values.array { addMember(object, toRelationship: key) }
    }

    /// `addToX(_ values:)` with a Swift set or array.
    public func _addManagedObjects<Objects: Sequence>(_ values: Objects, toRelationship key: String) where Objects.Element: NSManagedObject {
        for object in values { addMember(object, toRelationship: key) }
    }

    /// `removeFromX(_ value:)`.
    public func _removeManagedObject(_ value: NSManagedObject, fromRelationship key: String) {
        removeMember(value, fromRelationship: key)
    }

    /// `removeFromX(_ values: NSSet)`.
    public func _removeManagedObjects(_ values: NSSet, fromRelationship key: String) {
        for case let object as NSManagedObject in values.allObjects { removeMember(object, fromRelationship: key) }
    }

    /// `removeFromX(_ values: NSOrderedSet)`.
    public func _removeManagedObjects(_ values: NSOrderedSet, fromRelationship key: String) {
        for case let object as NSManagedObject in values.array { removeMember(object, fromRelationship: key) }
    }

    /// `removeFromX(_ values:)` with a Swift set or array.
    public func _removeManagedObjects<Objects: Sequence>(_ values: Objects, fromRelationship key: String) where Objects.Element: NSManagedObject {
        for object in values { removeMember(object, fromRelationship: key) }
    }

    /// `removeFromX(at idx:)` (ordered).
    public func _removeManagedObject(at idx: Int, fromRelationship key: String) {
        let members = orderedMembers(key)
        precondition(idx >= 0 && idx < members.count, "Index \(idx) out of bounds for '\(key)' (\(members.count) objects).")
        removeMember(members[idx], fromRelationship: key)
    }

    /// `removeFromX(at indexes:)` (ordered).
    public func _removeManagedObjects(at indexes: NSIndexSet, fromRelationship key: String) {
        _removeManagedObjects(at: IndexSet(indexes.map { $0 }), fromRelationship: key)
    }

    /// `removeFromX(at indexes:)` with an `IndexSet` (ordered).
    public func _removeManagedObjects(at indexes: IndexSet, fromRelationship key: String) {
        let members = orderedMembers(key)
        for index in indexes.reversed() where index < members.count { removeMember(members[index], fromRelationship: key) }
    }

    /// `insertIntoX(_ value:, at idx:)` (ordered).
    public func _insertManagedObject(_ value: NSManagedObject, at idx: Int, intoRelationship key: String) {
        addMember(value, toRelationship: key, at: idx)
    }

    /// `insertIntoX(_ values:, at indexes:)` (ordered).
    public func _insertManagedObjects<Objects: Sequence>(_ values: Objects, at indexes: NSIndexSet, intoRelationship key: String) where Objects.Element: NSManagedObject {
        _insertManagedObjects(values, at: IndexSet(indexes.map { $0 }), intoRelationship: key)
    }

    /// `insertIntoX(_ values:, at indexes:)` with an `IndexSet` (ordered).
    public func _insertManagedObjects<Objects: Sequence>(_ values: Objects, at indexes: IndexSet, intoRelationship key: String) where Objects.Element: NSManagedObject {
        for (object, index) in zip(values, indexes) { addMember(object, toRelationship: key, at: index) }
    }

    /// `replaceX(at idx:, with value:)` (ordered).
    public func _replaceManagedObject(at idx: Int, with value: NSManagedObject, inRelationship key: String) {
        let members = orderedMembers(key)
        precondition(idx >= 0 && idx < members.count, "Index \(idx) out of bounds for '\(key)' (\(members.count) objects).")
        removeMember(members[idx], fromRelationship: key)
        addMember(value, toRelationship: key, at: idx)
    }

    /// `replaceX(at indexes:, with values:)` (ordered).
    public func _replaceManagedObjects<Objects: Sequence>(at indexes: NSIndexSet, with values: Objects, inRelationship key: String) where Objects.Element: NSManagedObject {
        _replaceManagedObjects(at: IndexSet(indexes.map { $0 }), with: values, inRelationship: key)
    }

    /// `replaceX(at indexes:, with values:)` with an `IndexSet` (ordered).
    public func _replaceManagedObjects<Objects: Sequence>(at indexes: IndexSet, with values: Objects, inRelationship key: String) where Objects.Element: NSManagedObject {
        for (index, object) in zip(indexes, values) { _replaceManagedObject(at: index, with: object, inRelationship: key) }
    }

    /// The members of an ordered relationship.
    private func orderedMembers(_ key: String) -> [NSManagedObject] {
        guard case .toMany(let index, let relationship) = slot(for: key), relationship.isOrdered else {
            preconditionFailure("'\(key)' is not an ordered to-many relationship of entity \(entity.name ?? "?").")
        }
        fireFaultIfNeeded()
        return realizedMembers(at: index).order
    }

    // MARK: Conversions

    /// A stored attribute value as `Value`, when `Value` is one of the directly convertible Swift types
    /// (or an optional of one).
    static func converted<Value>(_ stored: StoredValue, to type: Value.Type) -> Value? {
        if let direct = Value.self as? ManagedAttributeValue.Type {
            // A nil scalar reads as zero, as Apple's scalar accessors do.
            if stored.isNull, let zero = direct.zero as? Value { return zero }
            return direct.fromStored(stored) as? Value
        }
        if let optional = Value.self as? OptionalValue.Type, let wrapped = optional.wrappedType as? ManagedAttributeValue.Type {
            guard !stored.isNull else { return optional.none_ as? Value }
            return wrapped.fromStored(stored).flatMap { optional.wrapping($0) as? Value }
        }
        return nil
    }

    /// A KVC value cast to `Value`: `nil` for optionals, Foundation collections bridged to Swift ones.
    static func cast<Value>(_ value: Any?, to type: Value.Type, key: String, entity: NSEntityDescription) -> Value {
        if let value, let cast = value as? Value { return cast }
        if value == nil || ValueConversion.isNull(value), let optional = Value.self as? OptionalValue.Type, let none = optional.none_ as? Value {
            return none
        }
        if let value, let optional = Value.self as? OptionalValue.Type, let wrapped = optional.wrapping(value) as? Value {
            return wrapped
        }
        preconditionFailure("The value of '\(key)' (\(ValueConversion.typeName(value))) of entity \(entity.name ?? "?") cannot be read as \(Value.self).")
    }

    /// `value` with any levels of optional removed (nil stays nil).
    static func unwrapped<Value>(_ value: Value) -> Any? {
        if let optional = value as? OptionalValue { return optional.wrapped }
        return value
    }
}
