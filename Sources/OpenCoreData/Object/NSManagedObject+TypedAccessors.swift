// Typed forms of the `@Managed` getter for the attribute types Core Data stores. `@Managed var name: String`
// expands to `get { _managedValue(forKey: "name") }`; Swift prefers these non-generic overloads to the generic
// one, so reading an attribute converts its stored value with no dynamic cast. Any other case (a transformable,
// a relationship, a type that does not match the stored value, a key-path probe) takes the generic path.

extension NSManagedObject {
    public func _managedValue(forKey key: String) -> String { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> String? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Int { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Int? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Int16 { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Int16? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Int32 { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Int32? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Int64 { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Int64? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Double { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Double? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Float { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Float? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Bool { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Bool? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Date { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Date? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Data { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Data? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> UUID { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> UUID? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> URL { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> URL? { typedOptionalAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Decimal { typedAttribute(forKey: key) }
    public func _managedValue(forKey key: String) -> Decimal? { typedOptionalAttribute(forKey: key) }

    /// The stored value of a non-transformable attribute `key`, after the access notifications fired the fault;
    /// nil for anything else.
    @inline(__always)
    private func storedAttributeValue(forKey key: String) -> StoredValue? {
        guard !isKeyPathProbe, let index = layout.slots.plainAttributeIndex(of: key) else { return nil }
        return attributeValues[index]
    }

    @inline(__always)
    private func typedAttribute<Value: ManagedAttributeValue>(forKey key: String) -> Value {
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        if let stored = storedAttributeValue(forKey: key) {
            // A nil scalar reads as zero, as Apple's scalar accessors do.
            if stored.isNull, let zero = Value.zero { return zero }
            if let value = Value.fromStored(stored) { return value }
        }
        return _managedPrimitiveValue(forKey: key)
    }

    @inline(__always)
    private func typedOptionalAttribute<Value: ManagedAttributeValue>(forKey key: String) -> Value? {
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        if let stored = storedAttributeValue(forKey: key) {
            if stored.isNull { return nil }
            if let value = Value.fromStored(stored) { return value }
        }
        return _managedPrimitiveValue(forKey: key)
    }
}

/// Swift sets of managed objects (`Set<Mood>`), which the generic `@Managed` getter builds straight from a
/// to-many relationship's members instead of bridging an `NSSet` element by element.
protocol ManagedToManySet {
    init?<Members: Collection<NSManagedObject>>(managedMembers: Members)
}

