import Foundation
import OpenCoreData

/// Reads and writes a model's persisted properties on its context's `NSManagedObject`: scalars through Core Data's
/// typed accessors, other `Codable` values as their JSON encoding, relationships as the models of the objects.
enum ModelValues {
    static func read<Value>(_ property: ModelProperty, of object: NSManagedObject, in context: ModelContext, as type: Value.Type) -> Value {
        switch property.kind {
        case .scalar:
            return object._managedValue(forKey: property.name)
        case .rawValue:
            let unwrapped = (Value.self as? any _OptionalModelValue.Type)?.wrappedValueType ?? Value.self
            guard let type = unwrapped as? any RawRepresentable.Type else { preconditionFailure("\(Value.self) is not RawRepresentable") }
            guard let value = readRawValue(type, property: property, of: object) else { return emptyValue(of: Value.self, property: property) }
            return value as! Value
        case .codable:
            let data: Data? = object._managedValue(forKey: property.name)
            guard let data else { return emptyValue(of: Value.self, property: property) }
            guard let decodable = Value.self as? any Decodable.Type else { preconditionFailure("\(Value.self) is not Decodable") }
            do {
                return try decodeValue(decodable, from: data) as! Value
            } catch {
                preconditionFailure("The stored value of '\(property.name)' cannot be decoded as \(Value.self): \(error)")
            }
        case .transformed:
            guard let value = object.value(forKey: property.name) else { return emptyValue(of: Value.self, property: property) }
            if let value = value as? Value { return value }
            if let optional = Value.self as? any _OptionalModelValue.Type, let wrapped = optional.wrapping(value) { return wrapped as! Value }
            preconditionFailure("The transformer of '\(property.name)' made a \(Swift.type(of: value)), not a \(Value.self).")
        case .toOne:
            guard let related = object.value(forKey: property.name) as? NSManagedObject else {
                return emptyValue(of: Value.self, property: property)
            }
            return context.model(for: related) as! Value
        case .toMany:
            let members = object.value(forKey: property.name)
            let objects = (members as? NSSet)?.allObjects ?? (members as? NSOrderedSet)?.array ?? []
            let models = objects.compactMap { ($0 as? NSManagedObject).map(context.model(for:)) }
            // `[Tag]` or `[Tag]?` (an optional to-many reads as an array, empty when it has no members).
            let optional = Value.self as? any _OptionalModelValue.Type
            guard let array = (optional?.wrappedValueType ?? Value.self) as? any _ModelArrayValue.Type else {
                preconditionFailure("\(Value.self) is not an array of models")
            }
            let list = array.make(models)
            if let optional, let wrapped = optional.wrapping(list) { return wrapped as! Value }
            return list as! Value
        case .unsupported(let type):
            preconditionFailure("'\(property.name)' has a type SwiftData cannot store (\(type)).")
        }
    }

    static func write<Value>(_ value: Value, to property: ModelProperty, of object: NSManagedObject, in context: ModelContext) {
        context.noteChanged()
        switch property.kind {
        case .scalar:
            object._setManagedValue(value, forKey: property.name)
        case .rawValue:
            object.setValue((unwrapped(value) as? any RawRepresentable).map { $0.rawValue as Any }, forKey: property.name)
        case .codable:
            object.setValue(encoded(value, property: property), forKey: property.name)
        case .transformed:
            object.setValue(unwrapped(value), forKey: property.name)
        case .toOne:
            let model = unwrapped(value) as? any PersistentModel
            object.setValue(model.map { context.managedObject(for: $0) }, forKey: property.name)
        case .toMany:
            let models = (unwrapped(value) as? [any PersistentModel]) ?? []
            object.setValue(NSSet(array: models.map { context.managedObject(for: $0) }), forKey: property.name)
        case .unsupported(let type):
            preconditionFailure("'\(property.name)' has a type SwiftData cannot store (\(type)).")
        }
    }

    /// The value key-value coding takes for an attribute property holding `value` (a model's value, as a custom
    /// snapshot encodes it): a scalar as it is, an enum as its raw value, another `Codable` value as its JSON.
    static func storedValue(of value: Any, for property: ModelProperty) -> Any? {
        switch property.kind {
        case .scalar, .transformed: unwrapped(value)
        case .rawValue: (unwrapped(value) as? any RawRepresentable).map { $0.rawValue as Any }
        case .codable: encoded(value, property: property)
        case .toOne, .toMany, .unsupported: nil
        }
    }

    /// A value kept by an instance not inserted yet, as `Value`.
    static func cast<Value>(_ value: Any, to type: Value.Type, property: ModelProperty) -> Value {
        if let value = value as? Value { return value }
        preconditionFailure("The value of '\(property.name)' (\(Swift.type(of: value))) cannot be read as \(Value.self).")
    }

    /// The value of a property never set: nil, or an empty array of models.
    static func emptyValue<Value>(of type: Value.Type, property: ModelProperty) -> Value {
        if let optional = Value.self as? any _OptionalModelValue.Type { return optional.nilValue as! Value }
        if let array = Value.self as? any _ModelArrayValue.Type { return array.make([]) as! Value }
        preconditionFailure("'\(property.name)' has no value: a non-optional property must be set before it is read.")
    }

    static func unwrapped(_ value: Any) -> Any? {
        if let optional = value as? any _OptionalModelValue { return optional.wrappedAny.flatMap(unwrapped) }
        return value
    }

    private static func encoded<Value>(_ value: Value, property: ModelProperty) -> Data? {
        guard let value = unwrapped(value) else { return nil }
        guard let encodable = value as? any Encodable else { preconditionFailure("\(Value.self) is not Encodable") }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return try encoder.encode(encodable)
        } catch {
            preconditionFailure("The value of '\(property.name)' cannot be encoded: \(error)")
        }
    }

    /// The stored raw value as an `R` (nil when null); a raw value no case has is the store's error, reported.
    private static func readRawValue<R: RawRepresentable>(_ type: R.Type, property: ModelProperty, of object: NSManagedObject) -> R? {
        let raw: R.RawValue? = object._managedValue(forKey: property.name)
        guard let raw else { return nil }
        guard let value = R(rawValue: raw) else {
            preconditionFailure("The stored value \(raw) of '\(property.name)' is no case of \(R.self).")
        }
        return value
    }

    private static func decodeValue<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(T.self, from: data)
    }
}
