import Foundation

@testable import OpenCoreData

// The values the stress oracle compares: a property value, a row of them, and an object's current and committed rows.

/// A property value as the oracle compares it.
enum StressValue: Codable, Equatable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    var description: String {
        switch self {
        case .null: "nil"
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .text(let value): "'\(value)'"
        }
    }

    /// A KVC value of `key` (a to-one destination as its primary key) as a stress value.
    init(kvc value: Any?, key: String, entity: NSEntityDescription) {
        let type = entity.attributesByName[key]?.attributeType
        switch value {
        case nil, is NSNull: self = .null
        case let object as NSManagedObject: self = object.objectID.primaryKey.map(StressValue.integer) ?? .null
        case let string as String: self = .text(string)
        case let number as NSNumber where type == .doubleAttributeType: self = .real(number.doubleValue)
        case let number as NSNumber: self = .integer(number.int64Value)
        case let double as Double: self = .real(double)
        case let integer as Int64: self = type == .doubleAttributeType ? .real(Double(integer)) : .integer(integer)
        case let integer as Int: self = type == .doubleAttributeType ? .real(Double(integer)) : .integer(Int64(integer))
        default: self = .text("\(value!)")
        }
    }
}

/// One object's tracked values (by property name).
typealias StressRow = [String: StressValue]

extension NSManagedObject {
    /// The tracked values the object shows now.
    var stressCurrent: StressRow {
        var row = StressRow()
        for key in StressModel.trackedKeys[entity.name ?? ""] ?? [] { row[key] = StressValue(kvc: value(forKey: key), key: key, entity: entity) }
        return row
    }

    /// The tracked values the context last read or saved (Apple's `committedValues(forKeys:)`).
    var stressCommitted: StressRow {
        let keys = StressModel.trackedKeys[entity.name ?? ""] ?? []
        let committed = committedValues(forKeys: keys)
        var row = StressRow()
        for key in keys { row[key] = StressValue(kvc: committed[key], key: key, entity: entity) }
        return row
    }
}
