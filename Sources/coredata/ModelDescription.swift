import Foundation
import OpenCoreData

/// A model as text: one block per entity (sorted by name) listing its version hash, attributes with their types,
/// relationships and fetched properties.
///
/// ```
/// Entity Mood (class Mood) — hash 3fXv…=
///   attribute date: Date
///   relationship country → Country (to-one, optional, inverse moods, nullify)
/// ```
enum ModelDescription {
    static func text(of model: NSManagedObjectModel, title: String) -> String {
        var lines = [title]
        lines.append("\(model.entities.count) entities; version checksum \(model.versionChecksum)")
        let identifiers = model.versionIdentifiers.map { "\($0)" }.filter { !$0.isEmpty }.sorted()
        if !identifiers.isEmpty { lines.append("version identifiers: \(identifiers.joined(separator: ", "))") }
        for configuration in model.configurations.sorted() {
            let names = (model.entities(forConfigurationName: configuration) ?? []).compactMap(\.name).sorted()
            lines.append("configuration \(configuration): \(names.joined(separator: ", "))")
        }
        let hashes = model.entityVersionHashesByName
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? "?"
            var header = "Entity \(name)"
            var traits: [String] = []
            if let className = entity.managedObjectClassName { traits.append("class \(className)") }
            if entity.isAbstract { traits.append("abstract") }
            if let parent = entity.superentity?.name { traits.append("parent \(parent)") }
            if !traits.isEmpty { header += " (\(traits.joined(separator: ", ")))" }
            lines.append("")
            lines.append(header)
            lines.append("  version hash: \(hashes[name]?.base64EncodedString() ?? "?")")
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                lines.append("  unique: \(constraint.map { "\($0)" }.joined(separator: ", "))")
            }
            for property in entity.properties.sorted(by: { $0.name < $1.name }) where property.entity === entity {
                lines.append("  " + describe(property))
            }
        }
        return lines.joined(separator: "\n")
    }

    static func describe(_ property: NSPropertyDescription) -> String {
        var flags: [String] = []
        if property.isOptional { flags.append("optional") }
        if property.isTransient { flags.append("transient") }
        if property.isIndexed { flags.append("indexed") }
        switch property {
        case let relationship as NSRelationshipDescription:
            var parts = [relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one"] + flags
            if let inverse = relationship.inverseRelationship?.name { parts.append("inverse \(inverse)") }
            parts.append(deleteRuleName(relationship.deleteRule))
            if relationship.minCount > 0 { parts.append("min \(relationship.minCount)") }
            if relationship.isToMany && relationship.maxCount > 0 { parts.append("max \(relationship.maxCount)") }
            return "relationship \(relationship.name) → \(relationship.destinationEntity?.name ?? "?") (\(parts.joined(separator: ", ")))"
        case let attribute as NSAttributeDescription:
            var text = "attribute \(attribute.name): \(typeName(attribute.attributeType))"
            if attribute is NSDerivedAttributeDescription, let expression = (attribute as? NSDerivedAttributeDescription)?.derivationExpression {
                flags.append("derived from \(expression)")
            }
            if let transformer = attribute.valueTransformerName { flags.append("transformer \(transformer)") }
            if let value = attribute.defaultValue { flags.append("default \(value)") }
            if !flags.isEmpty { text += " (\(flags.joined(separator: ", ")))" }
            return text
        case let fetched as NSFetchedPropertyDescription:
            let request = fetched.fetchRequest
            return "fetched property \(fetched.name) → \(request?.entityName ?? "?")" + (request?.predicate.map { " where \($0.predicateFormat)" } ?? "")
        default:
            return "property \(property.name)"
        }
    }

    static func typeName(_ type: NSAttributeType) -> String {
        switch type {
        case .undefinedAttributeType: return "Undefined"
        case .integer16AttributeType: return "Integer 16"
        case .integer32AttributeType: return "Integer 32"
        case .integer64AttributeType: return "Integer 64"
        case .decimalAttributeType: return "Decimal"
        case .doubleAttributeType: return "Double"
        case .floatAttributeType: return "Float"
        case .stringAttributeType: return "String"
        case .booleanAttributeType: return "Boolean"
        case .dateAttributeType: return "Date"
        case .binaryDataAttributeType: return "Binary"
        case .UUIDAttributeType: return "UUID"
        case .URIAttributeType: return "URI"
        case .transformableAttributeType: return "Transformable"
        case .objectIDAttributeType: return "ObjectID"
        case .compositeAttributeType: return "Composite"
        @unknown default: return "type \(type.rawValue)"
        }
    }

    static func deleteRuleName(_ rule: NSDeleteRule) -> String {
        switch rule {
        case .noActionDeleteRule: return "no action"
        case .nullifyDeleteRule: return "nullify"
        case .cascadeDeleteRule: return "cascade"
        case .denyDeleteRule: return "deny"
        @unknown default: return "delete rule \(rule.rawValue)"
        }
    }
}
