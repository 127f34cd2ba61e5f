import Foundation
import OpenCoreData

extension Schema {
    /// One model class as stored (SwiftData's `Schema.Entity`): its attributes, relationships and constraints.
    ///
    /// ```swift
    /// let trip = Schema(Trip.self).entitiesByName["Trip"]!
    /// trip.attributes.map(\.name)        // ["name", "start"]
    /// trip.relationships.map(\.name)     // ["stops"]
    /// ```
    public final class Entity: Hashable, CustomStringConvertible {
        /// The entity's name (the class's name).
        public let name: String
        /// The attributes, in declaration order.
        public let attributes: [Attribute]
        /// The relationships, in declaration order.
        public let relationships: [Relationship]
        /// The property names of each uniqueness constraint (`.unique` attributes and `#Unique`).
        public let uniquenessConstraints: [[String]]
        /// The property names of each index (`#Index`).
        public let indices: [[String]]
        /// Properties whose type SwiftData cannot store, with that type (the container refuses the schema).
        let unsupported: [(name: String, type: Any.Type)]
        /// The name of the entity of the model class this one inherits from (nil for a root model).
        public let superentityName: String?

        init(type: any PersistentModel.Type) {
            name = Schema.entityName(of: type)
            superentityName = ModelLayout.superclassModel(of: type).map { Schema.entityName(of: $0) }
            let layout = ModelLayout.of(type)
            // A subentity declares its own properties; it inherits the others from its superentity.
            let own = Set(ModelLayout.ownProperties(of: type).map(\.name))
            var attributes: [Attribute] = [], relationships: [Relationship] = [], unsupported: [(String, Any.Type)] = []
            for (metadata, property) in zip(type.schemaMetadata, layout.properties) where own.contains(property.name) {
                switch property.kind {
                case .scalar, .rawValue, .codable, .transformed:
                    let given = metadata.metadata as? Attribute
                    let attribute = Attribute(options: given?.options ?? [], originalName: given?.originalName, hashModifier: given?.hashModifier)
                    attribute.name = property.name
                    attribute.valueType = Swift.type(of: property.keyPath).valueType
                    attribute.isOptional = property.kind.isOptional
                    attribute.defaultValue = metadata.defaultValue
                    attributes.append(attribute)
                case .toOne(let destination, _), .toMany(let destination):
                    let relationship = ((metadata.metadata as? Relationship) ?? Relationship()).named(property.name)
                    relationship.destination = Schema.entityName(of: destination)
                    if case .toMany = property.kind { relationship.isToOneRelationship = false }
                    relationship.isOptional = property.kind.isOptional
                    if let keyPath = relationship.inverseKeyPath, let root = Swift.type(of: keyPath).rootType as? any PersistentModel.Type {
                        relationship.inverseName = ModelLayout.of(root).propertiesByKeyPath[keyPath]?.name
                    }
                    relationships.append(relationship)
                case .unsupported(let valueType):
                    unsupported.append((property.name, valueType))
                }
            }
            let names = { (paths: [AnyKeyPath]) in paths.compactMap { layout.propertiesByKeyPath[$0]?.name } }
            self.attributes = attributes
            self.relationships = relationships
            self.unsupported = unsupported
            // `#Unique` and `#Index` belong to the class that declares them: a subentity inherits its superentity's.
            let declares = superentityName == nil
            uniquenessConstraints = attributes.filter(\.isUnique).map { [$0.name] }
                + (declares ? type._$uniquenessConstraints.map(names).filter { !$0.isEmpty } : [])
            indices = declares ? type._$indices.map(names).filter { !$0.isEmpty } : []
        }

        /// The attributes by name.
        public var attributesByName: [String: Attribute] { Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }) }
        /// The relationships by name.
        public var relationshipsByName: [String: Relationship] { Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }) }

        public var description: String { "Entity(\(name): \(attributes + relationships.map { $0 as Any }))" }

        public static func == (lhs: Entity, rhs: Entity) -> Bool {
            lhs.name == rhs.name && lhs.attributes == rhs.attributes && lhs.relationships == rhs.relationships
                && lhs.uniquenessConstraints == rhs.uniquenessConstraints
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }
}
