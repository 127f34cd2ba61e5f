import Foundation
import OpenCoreData

/// Makes the Core Data model of a schema's entities: one `NSEntityDescription` per model class, with the attribute
/// types, optionality, delete rules, counts, inverses (given or inferred) and uniqueness constraints SwiftData gives
/// them, so the store is Core Data's and its version hashes are Core Data's.
///
/// ```swift
/// let model = ManagedObjectModelBuilder.model(for: Schema(Trip.self).entities, version: .init(1, 0, 0))
/// model.entitiesByName["Trip"]?.relationshipsByName["stops"]?.deleteRule   // .cascadeDeleteRule
/// ```
enum ManagedObjectModelBuilder {
    static func model(for entities: [Schema.Entity], version: Schema.Version) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        var descriptions: [String: NSEntityDescription] = [:]
        for entity in entities {
            let description = NSEntityDescription()
            description.name = entity.name
            description.managedObjectClassName = "NSManagedObject"
            descriptions[entity.name] = description
        }
        var relationshipsByEntity: [String: [String: NSRelationshipDescription]] = [:]
        for entity in entities {
            guard let description = descriptions[entity.name] else { continue }
            var properties: [NSPropertyDescription] = entity.attributes.map(attributeDescription)
            for relationship in entity.relationships {
                let property = NSRelationshipDescription()
                property.name = relationship.name
                property.destinationEntity = descriptions[relationship.destination]
                property.deleteRule = deleteRule(relationship.deleteRule)
                property.isOptional = relationship.isOptional
                if relationship.isToOneRelationship {
                    property.minCount = relationship.isOptional ? 0 : 1
                    property.maxCount = 1
                } else {
                    property.minCount = relationship.minimumModelCount ?? 0
                    property.maxCount = relationship.maximumModelCount ?? 0
                }
                property.renamingIdentifier = relationship.originalName
                property.versionHashModifier = relationship.hashModifier
                properties.append(property)
                relationshipsByEntity[entity.name, default: [:]][relationship.name] = property
            }
            description.properties = properties
            if !entity.uniquenessConstraints.isEmpty { description.uniquenessConstraints = entity.uniquenessConstraints }
            // `#Index`: one store index per list of properties (B-tree, as SwiftData's).
            let byName = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            description.indexes = entity.indices.enumerated().compactMap { number, names in
                let elements = names.compactMap { byName[$0].map { NSFetchIndexElementDescription(property: $0, collationType: .binary) } }
                guard elements.count == names.count else { return nil }
                return NSFetchIndexDescription(name: "\(entity.name)_\(names.joined(separator: "_"))_\(number)", elements: elements)
            }
        }
        for entity in entities {
            guard let superentity = entity.superentityName.flatMap({ descriptions[$0] }), let description = descriptions[entity.name] else { continue }
            superentity.subentities.append(description)
        }
        pairInverses(entities, relationshipsByEntity)
        model.entities = entities.compactMap { descriptions[$0.name] }
        model.versionIdentifiers = [version.description]
        return model
    }

    private static func attributeDescription(_ attribute: Schema.Attribute) -> NSAttributeDescription {
        let description = NSAttributeDescription()
        description.name = attribute.name
        description.isOptional = attribute.isOptional
        let valueType = attribute.valueType
        let unwrapped = (valueType as? any _OptionalModelValue.Type)?.wrappedValueType ?? valueType
        description.attributeType = attribute.isCodable ? .binaryDataAttributeType : ModelProperty.storedType(of: unwrapped)
        if let transformerName = attribute.options.lazy.compactMap(\.transformerName).first {
            description.attributeType = .transformableAttributeType
            description.valueTransformerName = transformerName
        }
        description.isTransient = attribute.isTransient
        description.allowsExternalBinaryDataStorage = attribute.options.contains(.externalStorage)
        description.isIndexedBySpotlight = attribute.options.contains(.spotlight)
        description.allowsCloudEncryption = attribute.options.contains(.allowsCloudEncryption)
        description.preservesValueInHistoryOnDeletion = attribute.options.contains(.preserveValueOnDeletion)
        description.renamingIdentifier = attribute.originalName
        description.versionHashModifier = attribute.hashModifier
        if let value = attribute.defaultValue, description.attributeType != .binaryDataAttributeType || unwrapped == Data.self,
           let wrapped = (value as? any _OptionalModelValue).map({ $0.wrappedAny }) ?? value {
            description.defaultValue = (wrapped as? any RawRepresentable).map { $0.rawValue as Any } ?? wrapped
        }
        return description
    }

    /// Pairs each relationship with its inverse: the one `inverse:` names (on either side), else the only relationship
    /// of the destination back to this entity that is not paired otherwise.
    private static func pairInverses(_ entities: [Schema.Entity], _ relationships: [String: [String: NSRelationshipDescription]]) {
        var inverseNames: [String: [String: String]] = [:]
        let types = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            for relationship in entity.relationships {
                guard let name = relationship.inverseName, let destination = types[relationship.destination],
                      destination.relationships.contains(where: { $0.name == name })
                else { continue }
                inverseNames[entity.name, default: [:]][relationship.name] = name
                inverseNames[relationship.destination, default: [:]][name] = relationship.name
            }
        }
        for entity in entities {
            for relationship in entity.relationships where inverseNames[entity.name]?[relationship.name] == nil {
                guard let destination = types[relationship.destination] else { continue }
                let candidates = destination.relationships.filter {
                    $0.destination == entity.name && inverseNames[destination.name]?[$0.name] == nil
                        && !($0.name == relationship.name && destination.name == entity.name)
                }
                let backCandidates = entity.relationships.filter { $0.destination == destination.name && inverseNames[entity.name]?[$0.name] == nil }
                guard candidates.count == 1, backCandidates.count == 1 else { continue }
                inverseNames[entity.name, default: [:]][relationship.name] = candidates[0].name
                inverseNames[destination.name, default: [:]][candidates[0].name] = relationship.name
            }
        }
        for (entityName, pairs) in inverseNames {
            for (name, inverseName) in pairs {
                guard let property = relationships[entityName]?[name], let destination = property.destinationEntity?.name,
                      let inverse = relationships[destination]?[inverseName] else { continue }
                property.inverseRelationship = inverse
            }
        }
        for entity in entities {
            for relationship in entity.relationships {
                relationship.inverseName = inverseNames[entity.name]?[relationship.name]
            }
        }
    }

    private static func deleteRule(_ rule: Schema.Relationship.DeleteRule) -> NSDeleteRule {
        switch rule {
        case .nullify: .nullifyDeleteRule
        case .cascade: .cascadeDeleteRule
        case .deny: .denyDeleteRule
        case .noAction: .noActionDeleteRule
        }
    }
}
