// Typed forms of the `@Managed` setter. `@Managed var name: String` expands to
// `set { _setManagedValue(newValue, forKey: "name") }`; for the attribute types Core Data stores, Swift picks these
// overloads, which convert the value to its stored form for the attribute's type without boxing it in `Any`, then
// do what Apple's generated setters do: `willChangeValue(forKey:)`, store the primitive value,
// `didChangeValue(forKey:)` (tracking, undo, notifications); for a class that overrides none of those, the same
// tracking is done directly (`setAttributeTrackingChange`). Anything else takes the generic path.

extension NSManagedObject {
    public func _setManagedValue(_ value: String, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: String?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Int, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Int?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Int16, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Int16?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Int32, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Int32?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Int64, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Int64?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Double, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Double?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Float, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Float?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Bool, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Bool?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Date, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Date?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Data, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Data?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: UUID, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: UUID?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: URL, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: URL?, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Decimal, forKey key: String) { setTyped(value, forKey: key) }
    public func _setManagedValue(_ value: Decimal?, forKey key: String) { setTyped(value, forKey: key) }

    @inline(__always)
    private func setTyped<Value: StorableAttributeValue>(_ value: Value?, forKey key: String) {
        guard !isKeyPathProbe, let position = layout.slots.position(of: key), let index = layout.slots.plainAttributeIndex(at: position),
              let stored = Self.stored(value, for: layout.attributes[index].attributeType)
        else {
            return setValue(value.map { $0 as Any }, forKey: key)
        }
        if tracksChangesDirectly { return setAttributeTrackingChange(stored, at: index, position: position, key: key) }
        willChangeValue(forKey: key)
        attributeValues[index] = stored
        didChangeValue(forKey: key)
    }

    /// `.null` for nil, else the value's stored form (nil when it needs the general conversion).
    private static func stored<Value: StorableAttributeValue>(_ value: Value?, for type: NSAttributeType) -> StoredValue? {
        guard let value else { return .null }
        return value.storedValue(for: type)
    }
}

/// Swift values an attribute stores, converted as key-value coding converts them (`ValueConversion`).
protocol StorableAttributeValue {
    /// The stored form for an attribute of `type`, or nil when this value needs the general conversion.
    func storedValue(for type: NSAttributeType) -> StoredValue?
}

private extension BinaryInteger {
    func integerStoredValue(for type: NSAttributeType) -> StoredValue? {
        guard let value = Int64(exactly: self) else { return nil }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return .integer(ValueConversion.clamp(value, to: type))
        case .booleanAttributeType: return .integer(value == 0 ? 0 : 1)
        case .doubleAttributeType: return .real(Double(value))
        case .floatAttributeType: return .real(Double(Float(value)))
        default: return nil
        }
    }
}

private extension BinaryFloatingPoint {
    func realStoredValue(for type: NSAttributeType) -> StoredValue? {
        switch type {
        case .doubleAttributeType: return .real(Double(self))
        case .floatAttributeType: return .real(Double(Float(self)))
        default: return nil
        }
    }
}

extension Int: StorableAttributeValue { func storedValue(for type: NSAttributeType) -> StoredValue? { integerStoredValue(for: type) } }
extension Int16: StorableAttributeValue { func storedValue(for type: NSAttributeType) -> StoredValue? { integerStoredValue(for: type) } }
extension Int32: StorableAttributeValue { func storedValue(for type: NSAttributeType) -> StoredValue? { integerStoredValue(for: type) } }
extension Int64: StorableAttributeValue { func storedValue(for type: NSAttributeType) -> StoredValue? { integerStoredValue(for: type) } }
extension Double: StorableAttributeValue { func storedValue(for type: NSAttributeType) -> StoredValue? { realStoredValue(for: type) } }
extension Float: StorableAttributeValue { func storedValue(for type: NSAttributeType) -> StoredValue? { realStoredValue(for: type) } }

extension Bool: StorableAttributeValue {
    func storedValue(for type: NSAttributeType) -> StoredValue? {
        type == .booleanAttributeType ? .integer(self ? 1 : 0) : (self ? 1 : 0).integerStoredValue(for: type)
    }
}

extension String: StorableAttributeValue {
    func storedValue(for type: NSAttributeType) -> StoredValue? { type == .stringAttributeType ? .text(self) : nil }
}

extension Date: StorableAttributeValue {
    func storedValue(for type: NSAttributeType) -> StoredValue? { type == .dateAttributeType ? .date(self) : nil }
}

extension Data: StorableAttributeValue {
    func storedValue(for type: NSAttributeType) -> StoredValue? { type == .binaryDataAttributeType ? .data(self) : nil }
}

extension UUID: StorableAttributeValue {
    func storedValue(for type: NSAttributeType) -> StoredValue? { type == .UUIDAttributeType ? .uuid(self) : nil }
}

extension URL: StorableAttributeValue {
    func storedValue(for type: NSAttributeType) -> StoredValue? { type == .URIAttributeType ? .url(self) : nil }
}

extension Decimal: StorableAttributeValue {
    func storedValue(for type: NSAttributeType) -> StoredValue? { type == .decimalAttributeType ? .decimal(self) : nil }
}
