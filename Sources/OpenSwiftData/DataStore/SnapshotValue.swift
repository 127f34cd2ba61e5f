import Foundation
@_spi(OpenSwiftData) import OpenCoreData

/// One property's value in a ``DefaultSnapshot``, as Core Data keeps it: a scalar of the attribute's type (an enum as
/// its raw value, another `Codable` value as its JSON, a transformed value as its transformer's data), or the
/// identifiers of a relationship's models. Encoded as a one-key object naming its kind (`{"string": "Lisbon"}`),
/// or null, so that a snapshot decodes without its schema.
enum SnapshotValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    case decimal(Decimal)
    /// A to-one relationship's model.
    case model(PersistentIdentifier)
    /// A to-many relationship's models.
    case models([PersistentIdentifier])

    private enum Kind: String, CodingKey { case bool, integer, double, string, date, data, uuid, url, decimal, model, models }

    init(from decoder: any Decoder) throws {
        if try decoder.singleValueContainer().decodeNil() { self = .null; return }
        let container = try decoder.container(keyedBy: Kind.self)
        guard let kind = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "A snapshot value is an object with one key naming its kind."))
        }
        switch kind {
        case .bool: self = .bool(try container.decode(Bool.self, forKey: kind))
        case .integer: self = .integer(try container.decode(Int64.self, forKey: kind))
        case .double: self = .double(try container.decode(Double.self, forKey: kind))
        case .string: self = .string(try container.decode(String.self, forKey: kind))
        case .date: self = .date(try container.decode(Date.self, forKey: kind))
        case .data: self = .data(try container.decode(Data.self, forKey: kind))
        case .uuid: self = .uuid(try container.decode(UUID.self, forKey: kind))
        case .url: self = .url(try container.decode(URL.self, forKey: kind))
        case .decimal: self = .decimal(try container.decode(Decimal.self, forKey: kind))
        case .model: self = .model(try container.decode(PersistentIdentifier.self, forKey: kind))
        case .models: self = .models(try container.decode([PersistentIdentifier].self, forKey: kind))
        }
    }

    func encode(to encoder: any Encoder) throws {
        if case .null = self {
            var single = encoder.singleValueContainer()
            try single.encodeNil()
            return
        }
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .null: break
        case .bool(let value): try container.encode(value, forKey: .bool)
        case .integer(let value): try container.encode(value, forKey: .integer)
        case .double(let value): try container.encode(value, forKey: .double)
        case .string(let value): try container.encode(value, forKey: .string)
        case .date(let value): try container.encode(value, forKey: .date)
        case .data(let value): try container.encode(value, forKey: .data)
        case .uuid(let value): try container.encode(value, forKey: .uuid)
        case .url(let value): try container.encode(value, forKey: .url)
        case .decimal(let value): try container.encode(value, forKey: .decimal)
        case .model(let value): try container.encode(value, forKey: .model)
        case .models(let value): try container.encode(value, forKey: .models)
        }
    }

    /// The value of an attribute as key-value coding gives it (`value(forKey:)`), by the attribute's type.
    init(attributeValue value: Any?, of attribute: NSAttributeDescription) {
        guard let value, !(value is NSNull) else { self = .null; return }
        switch attribute.attributeType {
        case .booleanAttributeType:
            self = (value as? Bool).map(SnapshotValue.bool) ?? (value as? NSNumber).map { .bool($0.boolValue) } ?? .null
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            self = Self.integer(value).map(SnapshotValue.integer) ?? .null
        case .doubleAttributeType, .floatAttributeType:
            self = (value as? Double).map(SnapshotValue.double) ?? (value as? Float).map { .double(Double($0)) }
                ?? (value as? NSNumber).map { .double($0.doubleValue) } ?? .null
        case .decimalAttributeType:
            self = (value as? Decimal).map(SnapshotValue.decimal) ?? (value as? NSDecimalNumber).map { .decimal($0.decimalValue) } ?? .null
        case .stringAttributeType: self = (value as? String).map(SnapshotValue.string) ?? .null
        case .dateAttributeType: self = (value as? Date).map(SnapshotValue.date) ?? .null
        case .binaryDataAttributeType: self = (value as? Data).map(SnapshotValue.data) ?? .null
        case .UUIDAttributeType: self = (value as? UUID).map(SnapshotValue.uuid) ?? .null
        case .URIAttributeType: self = (value as? URL).map(SnapshotValue.url) ?? .null
        case .transformableAttributeType: self = TransformableConversion.data(for: value, attribute: attribute).map(SnapshotValue.data) ?? .null
        default: self = (value as? Data).map(SnapshotValue.data) ?? .null
        }
    }

    /// The value key-value coding takes for an attribute (a transformed value as its object).
    func attributeValue(of attribute: NSAttributeDescription) -> Any? {
        switch self {
        case .null, .model, .models: return nil
        case .bool(let value): return value
        case .integer(let value):
            switch attribute.attributeType {
            case .integer16AttributeType: return Int16(truncatingIfNeeded: value)
            case .integer32AttributeType: return Int32(truncatingIfNeeded: value)
            default: return value
            }
        case .double(let value): return attribute.attributeType == .floatAttributeType ? Float(value) : value
        case .string(let value): return value
        case .date(let value): return value
        case .data(let value):
            return attribute.attributeType == .transformableAttributeType ? TransformableConversion.object(from: value, attribute: attribute) : value
        case .uuid(let value): return value
        case .url(let value): return value
        case .decimal(let value): return value
        }
    }

    /// The relationship identifiers the value holds (one for a to-one, all for a to-many, none for null).
    var identifiers: [PersistentIdentifier] {
        switch self {
        case .model(let id): [id]
        case .models(let ids): ids
        default: []
        }
    }

    /// The value with the relationship identifiers `remapped` maps replaced.
    func remapping(_ remapped: [PersistentIdentifier: PersistentIdentifier]) -> SnapshotValue {
        switch self {
        case .model(let id): .model(remapped[id] ?? id)
        case .models(let ids): .models(ids.map { remapped[$0] ?? $0 })
        default: self
        }
    }

    private static func integer(_ value: Any) -> Int64? {
        switch value {
        case let value as Int: Int64(value)
        case let value as Int64: value
        case let value as Int32: Int64(value)
        case let value as Int16: Int64(value)
        case let value as Int8: Int64(value)
        case let value as NSNumber: value.int64Value
        default: nil
        }
    }
}
