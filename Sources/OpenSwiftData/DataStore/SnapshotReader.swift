import Foundation
import OpenCoreData

/// Reads the values of any ``DataStoreSnapshot`` for a context: a ``DefaultSnapshot``'s directly, another type's by
/// encoding it into an encoder that keeps each value under its ``DataStoreSnapshotCodingKey`` (the key space Apple
/// gives snapshot coders), then converting each as the model's property stores it.
///
/// ```swift
/// let (id, values) = try SnapshotReader.read(snapshot, schema: schema)
/// ```
enum SnapshotReader {
    static func read(_ snapshot: some DataStoreSnapshot, schema: Schema, model: NSManagedObjectModel) throws -> DefaultSnapshot {
        if let snapshot = snapshot as? DefaultSnapshot { return snapshot }
        let capture = CapturingEncoder()
        try snapshot.encode(to: capture)
        if let problem = capture.box.problem {
            throw SwiftDataError(.loadIssueModelContainer, "\(type(of: snapshot)) does not encode its values as DataStoreSnapshotCodingKey keys: \(problem)")
        }
        let id = snapshot.persistentIdentifier
        guard let entity = model.entitiesByName[id.entityName], let type = schema.modelTypes[id.entityName] else {
            throw SwiftDataError(.loadIssueModelContainer, "A snapshot of \(type(of: snapshot)) is of the entity '\(id.entityName)', which is not in the schema.")
        }
        let layout = ModelLayout.of(type)
        var values: [String: SnapshotValue] = [:]
        for (name, raw) in capture.box.values {
            guard let property = layout.properties.first(where: { $0.name == name }) else { continue }
            let value = raw is NSNull ? nil : ModelValues.unwrapped(raw)
            switch property.kind {
            case .toOne:
                values[name] = (value as? PersistentIdentifier).map(SnapshotValue.model) ?? .null
            case .toMany:
                values[name] = .models(value as? [PersistentIdentifier] ?? [])
            case .scalar, .rawValue, .codable, .transformed:
                guard let attribute = entity.attributesByName[name] else { continue }
                values[name] = SnapshotValue(attributeValue: value.flatMap { ModelValues.storedValue(of: $0, for: property) }, of: attribute)
            case .unsupported:
                continue
            }
        }
        return DefaultSnapshot(persistentIdentifier: id, values: values)
    }
}

/// An encoder that keeps the values encoded at the top level of a keyed container, as they are.
private final class CapturingEncoder: Encoder {
    final class Box {
        var values: [String: Any] = [:]
        var problem: String?
    }
    let box = Box()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedCapture<Key>(box: box))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        box.problem = "it encodes an unkeyed container"
        return DiscardingContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        box.problem = "it encodes a single value"
        return DiscardingContainer()
    }
}

private struct KeyedCapture<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: CapturingEncoder.Box
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { box.values[key.stringValue] = NSNull() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: String, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: Double, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: Float, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: Int, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: Int8, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: Int16, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: Int32, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: Int64, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: UInt, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { box.values[key.stringValue] = value }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { box.values[key.stringValue] = value }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        box.problem = "it nests a container under '\(key.stringValue)'"
        return KeyedEncodingContainer(KeyedCapture<NestedKey>(box: CapturingEncoder.Box()))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        box.problem = "it nests a container under '\(key.stringValue)'"
        return DiscardingContainer()
    }

    mutating func superEncoder() -> any Encoder {
        box.problem = "it encodes a superclass"
        return CapturingEncoder()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        box.problem = "it encodes a superclass under '\(key.stringValue)'"
        return CapturingEncoder()
    }
}

/// Takes and drops what a snapshot encodes in a shape the reader does not read (the reader then reports it).
private struct DiscardingContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(KeyedCapture<NestedKey>(box: CapturingEncoder.Box()))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { CapturingEncoder() }
}
