/// Transformable attributes: the conversion between an attribute's object and the `Data` stored for it,
/// through the attribute's `ValueTransformer` (`NSSecureUnarchiveFromData` when none is named).
///
/// Core Data applies the unarchiving transformers (`NSSecureUnarchiveFromData`, `NSKeyedUnarchiveFromData`,
/// `NSUnarchiveFromData` and subclasses of `NSSecureUnarchiveFromDataTransformer`), whose forward direction is
/// data → object, in reverse when saving; custom transformers go object → data forward, as Apple documents.
enum TransformableValues {
    static let defaultTransformerName = "NSSecureUnarchiveFromData"
    private static let unarchivingNames: Set<String> = ["NSSecureUnarchiveFromData", "NSKeyedUnarchiveFromData", "NSUnarchiveFromData"]

    /// The attribute's transformer; a missing one stops the program (Apple raises).
    static func transformer(for attribute: NSAttributeDescription) -> (ValueTransformer, reversed: Bool) {
        let name = attribute.valueTransformerName ?? defaultTransformerName
        guard let transformer = ValueTransformer(forName: NSValueTransformerName(rawValue: name)) else {
            preconditionFailure("No value transformer named '\(name)' is registered (transformable attribute '\(attribute.name)' of entity '\(attribute.owningEntity?.name ?? "?")'). Register it with ValueTransformer.setValueTransformer(_:forName:) before using the attribute.")
        }
        return (transformer, transformer is NSSecureUnarchiveFromDataTransformer || unarchivingNames.contains(name))
    }

    /// The object for stored data (nil for null or data the transformer rejects).
    static func object(from stored: StoredValue, attribute: NSAttributeDescription) -> Any? {
        guard case .data(let data) = stored else { return nil }
        let (transformer, reversed) = transformer(for: attribute)
        let object = reversed ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
        return ValueConversion.isNull(object) ? nil : object
    }

    /// The stored data for an object.
    static func storedValue(from object: Any?, attribute: NSAttributeDescription) -> StoredValue {
        guard let object, !ValueConversion.isNull(object) else { return .null }
        let (transformer, reversed) = transformer(for: attribute)
        let result = reversed ? transformer.reverseTransformedValue(object) : transformer.transformedValue(object)
        if let data = result as? Data { return .data(data) }
        if let data = result as? NSData { return .data(Data(referencing: data)) }
        if result == nil || ValueConversion.isNull(result) { return .null }
        preconditionFailure("The value transformer of transformable attribute '\(attribute.name)' returned \(ValueConversion.typeName(result)), not Data.")
    }
}

/// The data a transformable attribute's object is kept as, and back, through the attribute's transformer, for
/// OpenSwiftData's snapshots (which carry values as `Codable` data).
///
/// ```swift
/// let data = TransformableConversion.data(for: color, attribute: attribute)
/// let back = TransformableConversion.object(from: data, attribute: attribute)
/// ```
@_spi(OpenSwiftData)
public enum TransformableConversion {
    /// The data `object` is stored as (nil for nil).
    public static func data(for object: Any?, attribute: NSAttributeDescription) -> Data? {
        if case .data(let data) = TransformableValues.storedValue(from: object, attribute: attribute) { return data }
        return nil
    }

    /// The object `data` stands for (nil when the transformer rejects it).
    public static func object(from data: Data, attribute: NSAttributeDescription) -> Any? {
        TransformableValues.object(from: .data(data), attribute: attribute)
    }
}
