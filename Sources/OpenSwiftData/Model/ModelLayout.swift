import Foundation
@_spi(OpenSwiftData) import OpenCoreData

/// What each persisted property of a model class is, from its `@Model` metadata and the key path's value type (no
/// reflection): computed once per class.
///
/// ```swift
/// ModelLayout.property(for: \Trip.stops, of: Trip.self).kind   // .toMany(Stop.self)
/// ```
struct ModelLayout: @unchecked Sendable {
    // @unchecked Sendable: immutable; AnyKeyPath (a key path is an immutable value) is not declared Sendable.
    let properties: [ModelProperty]
    let propertiesByKeyPath: [AnyKeyPath: ModelProperty]

    private static let cache = Locked<[ObjectIdentifier: ModelLayout]>([:])

    static func of(_ type: any PersistentModel.Type) -> ModelLayout {
        let key = ObjectIdentifier(type)
        if let layout = cache.withLock({ $0[key] }) { return layout }
        let properties = type.schemaMetadata.map { ModelProperty(name: $0.name, keyPath: $0.keypath, attribute: $0.metadata as? Schema.Attribute) }
        let layout = ModelLayout(properties: properties,
                                 propertiesByKeyPath: Dictionary(properties.map { ($0.keyPath, $0) }, uniquingKeysWith: { first, _ in first }))
        cache.withLock { $0[key] = layout }
        return layout
    }

    /// The persisted property at `keyPath` of a `type` model: in `type`'s layout, else in that of the key path's root
    /// (a model class's own accessors name their properties from their class, the backing data may be a superclass's
    /// or a subclass's). A key path `@Model` did not list is the program's error.
    static func property(for keyPath: AnyKeyPath, of type: any PersistentModel.Type) -> ModelProperty {
        if let property = of(type).propertiesByKeyPath[keyPath] { return property }
        if let root = Swift.type(of: keyPath).rootType as? any PersistentModel.Type, let property = of(root).propertiesByKeyPath[keyPath] {
            return property
        }
        preconditionFailure("\(keyPath) is not a persisted property of a @Model class (a @Transient property, or a class without @Model).")
    }

    /// The properties `type` declares itself (not those it inherits from a model superclass).
    static func ownProperties(of type: any PersistentModel.Type) -> [ModelProperty] {
        let inherited = Set(superclassModel(of: type).map { of($0).properties.map(\.name) } ?? [])
        return of(type).properties.filter { !inherited.contains($0.name) }
    }

    /// The model class `type` inherits from, if any.
    static func superclassModel(of type: any PersistentModel.Type) -> (any PersistentModel.Type)? {
        _getSuperclass(type) as? any PersistentModel.Type
    }
}

/// One persisted property: its name, key path and what kind of value it holds.
struct ModelProperty: @unchecked Sendable {
    // @unchecked Sendable: immutable; its AnyKeyPath is an immutable value not declared Sendable.
    let name: String
    let keyPath: AnyKeyPath
    let kind: Kind

    enum Kind: Sendable {
        /// A value Core Data stores in a column of its own type.
        case scalar(NSAttributeType, optional: Bool)
        /// An enum (or other `RawRepresentable`) whose raw value is a scalar: stored as its raw value.
        case rawValue(NSAttributeType, optional: Bool)
        /// Any other `Codable` value: stored as its JSON encoding (binary data).
        case codable(optional: Bool)
        /// A value `@Attribute(.transformable(by:))` gives a transformer: Core Data's transformable attribute, the
        /// value handed to Core Data as it is.
        case transformed(optional: Bool)
        /// A model (or nil).
        case toOne(any PersistentModel.Type, optional: Bool)
        /// An array of models.
        case toMany(any PersistentModel.Type)
        /// A type SwiftData cannot store (neither a model, a scalar, nor `Codable`).
        case unsupported(Any.Type)

        var destination: (any PersistentModel.Type)? {
            switch self {
            case .toOne(let type, _), .toMany(let type): type
            default: nil
            }
        }

        var isOptional: Bool {
            switch self {
            case .scalar(_, let optional), .rawValue(_, let optional), .codable(let optional), .transformed(let optional), .toOne(_, let optional):
                optional
            case .toMany: true
            case .unsupported: false
            }
        }
    }

    init(name: String, keyPath: AnyKeyPath, attribute: Schema.Attribute?) {
        self.name = name
        self.keyPath = keyPath
        let valueType = type(of: keyPath).valueType
        if attribute?.options.contains(where: { $0.transformerName != nil }) == true {
            kind = .transformed(optional: valueType is any _OptionalModelValue.Type)
        } else if attribute?.isCodable == true, ((valueType as? any _OptionalModelValue.Type)?.wrappedValueType ?? valueType) is any Codable.Type {
            kind = .codable(optional: valueType is any _OptionalModelValue.Type)
        } else {
            kind = Self.kind(of: valueType)
        }
    }

    private static func kind(of valueType: Any.Type) -> Kind {
        var type = valueType
        var optional = false
        if let wrapper = type as? any _OptionalModelValue.Type {
            type = wrapper.wrappedValueType
            optional = true
        }
        if let model = type as? any PersistentModel.Type { return .toOne(model, optional: optional) }
        if let array = type as? any _ModelArrayValue.Type { return .toMany(array.elementModelType) }
        if let scalar = scalarTypes[ObjectIdentifier(type)] { return .scalar(scalar, optional: optional) }
        if let raw = type as? any RawRepresentable.Type, let scalar = scalarTypes[ObjectIdentifier(rawValueType(of: raw))] {
            return .rawValue(scalar, optional: optional)
        }
        if type is any Codable.Type { return .codable(optional: optional) }
        return .unsupported(valueType)
    }

    private static func rawValueType<R: RawRepresentable>(of type: R.Type) -> Any.Type { R.RawValue.self }

    /// The Core Data type an attribute of `type` is stored as: its own, its raw value's, else binary data (JSON).
    static func storedType(of type: Any.Type) -> NSAttributeType {
        if let scalar = scalarTypes[ObjectIdentifier(type)] { return scalar }
        if let raw = type as? any RawRepresentable.Type, let scalar = scalarTypes[ObjectIdentifier(rawValueType(of: raw))] { return scalar }
        return .binaryDataAttributeType
    }

    /// The Swift types Core Data stores in a column of their own.
    private static let scalarTypes: [ObjectIdentifier: NSAttributeType] = [
        ObjectIdentifier(Int.self): .integer64AttributeType, ObjectIdentifier(Int64.self): .integer64AttributeType,
        ObjectIdentifier(Int32.self): .integer32AttributeType, ObjectIdentifier(Int16.self): .integer16AttributeType,
        ObjectIdentifier(Bool.self): .booleanAttributeType, ObjectIdentifier(Double.self): .doubleAttributeType,
        ObjectIdentifier(Float.self): .floatAttributeType, ObjectIdentifier(Decimal.self): .decimalAttributeType,
        ObjectIdentifier(String.self): .stringAttributeType, ObjectIdentifier(Date.self): .dateAttributeType,
        ObjectIdentifier(Data.self): .binaryDataAttributeType, ObjectIdentifier(UUID.self): .UUIDAttributeType,
        ObjectIdentifier(URL.self): .URIAttributeType,
    ]
}

/// `Optional`, seen through its type: what it wraps, and its nil.
protocol _OptionalModelValue {
    static var wrappedValueType: Any.Type { get }
    static var nilValue: Self { get }
    static func wrapping(_ value: Any) -> Self?
    var wrappedAny: Any? { get }
}

extension Optional: _OptionalModelValue {
    static var wrappedValueType: Any.Type { Wrapped.self }
    static var nilValue: Self { nil }
    static func wrapping(_ value: Any) -> Self? { (value as? Wrapped).map { .some($0) } }
    var wrappedAny: Any? { self.map { $0 } }
}

/// An array of models, seen through its type: its model class, and how to make one of models.
protocol _ModelArrayValue {
    static var elementModelType: any PersistentModel.Type { get }
    static func make(_ models: [any PersistentModel]) -> Self
}

extension Array: _ModelArrayValue where Element: PersistentModel {
    static var elementModelType: any PersistentModel.Type { Element.self }
    static func make(_ models: [any PersistentModel]) -> [Element] { models.map { $0 as! Element } }
}
