import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata store query STORE --model M --entity E [--predicate P] [--sort key,-other] [--limit N] [--format …]`:
/// the results of a real fetch request.
struct StoreQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run a fetch request on a store and print the objects.",
        discussion: """
            The predicate uses NSPredicate's format language ("rating > 3 AND country.numericISO3166Code == 276"). \
            Sort keys are comma-separated; a leading '-' sorts descending. Columns: the object ID, the attributes, \
            to-one relationships (as object IDs) and to-many relationships (as counts).
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv
    }

    @Argument(help: "The store file (.sqlite). It is opened read-only.")
    var store: String

    @Option(help: "The app's model; without it the store's own model cache is used.")
    var model: String?

    @Option(help: "The entity to fetch.")
    var entity: String

    @Option(help: "A predicate in NSPredicate's format language.")
    var predicate: String?

    @Option(parsing: .unconditional, help: "Sort keys, comma-separated; '-key' sorts descending.")
    var sort: String?

    @Option(help: "The most objects to print.")
    var limit: Int?

    @Option(help: "table, json or csv.")
    var format: Format = .table

    func run() throws {
        let (model, _) = try ToolSupport.model(forStore: store, modelPath: self.model)
        guard let description = model.entitiesByName[entity] else {
            throw CommandFailure("No entity named '\(entity)' in the model (entities: \(model.entities.compactMap(\.name).sorted().joined(separator: ", ")))")
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        if let predicate {
            request.predicate = try reportingFailures {
                do { return try NSPredicate(validatingFormat: predicate, argumentArray: nil) } catch {
                    throw CommandFailure("Invalid predicate: \((error as NSError).localizedDescription)")
                }
            }
        }
        if let sort {
            request.sortDescriptors = sort.split(separator: ",").map { key in
                let trimmed = key.trimmingCharacters(in: .whitespaces)
                return trimmed.hasPrefix("-") ? NSSortDescriptor(key: String(trimmed.dropFirst()), ascending: false) : NSSortDescriptor(key: trimmed, ascending: true)
            }
        }
        if let limit {
            guard limit >= 0 else { throw CommandFailure("--limit must not be negative") }
            request.fetchLimit = limit
        }
        let context = try ToolSupport.openReadOnly(store, model: model)
        let objects = try reportingFailures { try context.fetch(request) }
        let columns = ["id"] + description.properties.filter { !$0.isTransient && !($0 is NSFetchedPropertyDescription) }.map(\.name).sorted()
        let rows = objects.map { object in columns.map { ResultFormatting.value(of: object, column: $0) } }
        switch format {
        case .table: print(ResultFormatting.table(columns: columns, rows: rows.map { $0.map(ResultFormatting.text) }) + "\n(\(objects.count) objects)")
        case .csv: print(ResultFormatting.csv(columns: columns, rows: rows.map { $0.map(ResultFormatting.text) }))
        case .json: print(try ResultFormatting.json(columns: columns, rows: rows))
        }
    }
}

/// Values of fetched objects as table, CSV and JSON text.
enum ResultFormatting {
    /// A column's value: the object ID (`Mood/p3`), an attribute, a to-one's object ID, or a to-many's count.
    static func value(of object: NSManagedObject, column: String) -> Any? {
        if column == "id" { return shortID(object.objectID) }
        guard let property = object.entity.propertiesByName[column] else { return nil }
        let value = object.value(forKey: column)
        if let relationship = property as? NSRelationshipDescription {
            if relationship.isToMany {
                let count = (value as? NSSet)?.count ?? (value as? NSOrderedSet)?.count ?? 0
                return "\(count) \(relationship.destinationEntity?.name ?? "object")\(count == 1 ? "" : "s")"
            }
            return (value as? NSManagedObject).map { shortID($0.objectID) }
        }
        guard let attribute = property as? NSAttributeDescription, let value, !(value is NSNull) else { return value }
        // Numbers come back as NSNumber, whose bridging would read 0 as `false`: type them by the attribute.
        switch attribute.attributeType {
        case .booleanAttributeType:
            return Flag(value: (value as? NSNumber)?.boolValue ?? (value as? Bool) ?? false)
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return (value as? NSNumber)?.int64Value ?? value
        case .doubleAttributeType, .floatAttributeType:
            return (value as? NSNumber)?.doubleValue ?? value
        default:
            return value
        }
    }

    /// A boolean attribute's value (kept apart from numbers).
    struct Flag {
        let value: Bool
    }

    /// `Entity/pN` from the object ID's URI.
    static func shortID(_ id: NSManagedObjectID) -> String {
        "\(id.entity.name ?? "?")/\(id.uriRepresentation().lastPathComponent)"
    }

    static func text(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: return ""
        case let string as String: return string
        case let date as Date: return ISO8601DateFormatter().string(from: date)
        case let data as Data: return "<\(data.count) bytes>"
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let flag as Flag: return flag.value ? "true" : "false"
        case let value?: return "\(value)"
        }
    }

    static func table(columns: [String], rows: [[String]]) -> String {
        let widths = columns.indices.map { index in ([columns[index]] + rows.map { $0[index] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return ([line(columns), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)).joined(separator: "\n")
    }

    static func csv(columns: [String], rows: [[String]]) -> String {
        func field(_ text: String) -> String {
            text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        return ([columns] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\n")
    }

    static func json(columns: [String], rows: [[Any?]]) throws -> String {
        let objects: [[String: Any]] = rows.map { row in
            var object: [String: Any] = [:]
            for (column, value) in zip(columns, row) {
                switch value {
                case nil, is NSNull: object[column] = NSNull()
                case let data as Data: object[column] = data.base64EncodedString()
                case let date as Date: object[column] = ISO8601DateFormatter().string(from: date)
                case let flag as Flag: object[column] = flag.value
                case let integer as Int64: object[column] = integer
                case let number as NSNumber: object[column] = number
                case let double as Double: object[column] = double
                case let float as Float: object[column] = Double(float)
                case let string as String: object[column] = string
                case let value?: object[column] = text(value)
                }
            }
            return object
        }
        let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
