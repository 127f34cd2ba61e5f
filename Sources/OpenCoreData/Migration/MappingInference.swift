/// Infers the mapping between two model versions the way Core Data's lightweight migration does: an entity
/// or property of the destination matches the source one named by its `renamingIdentifier` (or its own name).
///
/// The changes it accepts: added, removed and renamed entities, attributes and relationships; optional ↔
/// required (a required attribute gets its default value where the source has none); the attribute type
/// changes SQL can convert (between the integer, decimal, floating-point, boolean and string types, string ↔
/// URI, binary ↔ transformable); relationship cardinality and ordering changes; inheritance changes that do
/// not merge hierarchies. Anything else throws `NSInferredMappingModelError` naming the change.
struct MappingInference {
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel

    /// The entity mappings, in destination entity order, then the removals.
    func entityMappings() throws -> [NSEntityMapping] {
        var mappings: [NSEntityMapping] = []
        var matchedSources = Set<ObjectIdentifier>()
        var sourceByDestination: [ObjectIdentifier: NSEntityDescription] = [:]
        for entity in destination.entities {
            if let match = sourceEntity(for: entity) {
                guard matchedSources.insert(ObjectIdentifier(match)).inserted else {
                    throw Self.error("two destination entities claim the source entity \(match.name ?? "?") (check renaming identifiers)")
                }
                sourceByDestination[ObjectIdentifier(entity)] = match
            }
        }
        try checkHierarchies(sourceByDestination)
        for entity in destination.entities {
            let mapping = NSEntityMapping()
            mapping.destinationEntityName = entity.name
            mapping.destinationEntityVersionHash = entity.versionHash
            guard let match = sourceByDestination[ObjectIdentifier(entity)] else {
                mapping.name = "AddTo\(entity.name ?? "")"
                mapping.mappingType = .addEntityMappingType
                mappings.append(mapping)
                continue
            }
            mapping.name = Self.mappingName(source: match, destination: entity)
            mapping.sourceEntityName = match.name
            mapping.sourceEntityVersionHash = match.versionHash
            mapping.mappingType = match.versionHash == entity.versionHash && match.name == entity.name ? .copyEntityMappingType : .transformEntityMappingType
            mapping.sourceExpression = Self.sourceExpression(for: match)
            var attributes: [NSPropertyMapping] = []
            var relationships: [NSPropertyMapping] = []
            for property in entity.properties where !property.isTransient {
                switch property {
                case let attribute as NSAttributeDescription:
                    let sourceAttribute = try self.sourceAttribute(for: attribute, in: match)
                    attributes.append(NSPropertyMapping(name: attribute.name, valueExpression: sourceAttribute.map { Self.sourceKeyPath($0.name) }))
                case let relationship as NSRelationshipDescription:
                    var expression: NSExpression?
                    if let sourceRelationship = self.sourceRelationship(for: relationship, in: match, sourceByDestination: sourceByDestination) {
                        expression = Self.destinationInstances(sourceRelationship: sourceRelationship.name)
                    }
                    relationships.append(NSPropertyMapping(name: relationship.name, valueExpression: expression))
                default:
                    continue
                }
            }
            mapping.attributeMappings = attributes
            mapping.relationshipMappings = relationships
            mappings.append(mapping)
        }
        for entity in source.entities where !matchedSources.contains(ObjectIdentifier(entity)) {
            let mapping = NSEntityMapping()
            mapping.name = "\(entity.name ?? "")ToRemove"
            mapping.mappingType = .removeEntityMappingType
            mapping.sourceEntityName = entity.name
            mapping.sourceEntityVersionHash = entity.versionHash
            mappings.append(mapping)
        }
        return mappings
    }

    /// `<Source>To<Destination>`, the name Xcode and Core Data give an entity mapping.
    static func mappingName(source: NSEntityDescription, destination: NSEntityDescription) -> String {
        "\(source.name ?? "")To\(destination.name ?? "")"
    }

    /// `$source.<name>`.
    static func sourceKeyPath(_ name: String) -> NSExpression {
        NSExpression(node: .keyPath(operand: NSExpression(forVariable: "source"), path: name))
    }

    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "<name>", $source.<name>)`,
    /// the expression Apple's inferred mappings give a relationship (its members, whichever mapping migrated them).
    static func destinationInstances(sourceRelationship name: String) -> NSExpression {
        NSExpression(node: .function(target: NSExpression(forVariable: "manager"), name: "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
                                     arguments: [NSExpression(forConstantValue: name), sourceKeyPath(name)]))
    }

    /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<mapping>", $source.<key>)`,
    /// the expression Xcode's mapping editor gives a relationship.
    static func destinationInstances(mappingName: String, keyPath: String) -> NSExpression {
        NSExpression(node: .function(target: NSExpression(forVariable: "manager"), name: "destinationInstancesForEntityMappingNamed:sourceInstances:",
                                     arguments: [NSExpression(forConstantValue: mappingName), sourceKeyPath(keyPath)]))
    }

    /// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "<entity>", "TRUEPREDICATE"), $manager.sourceContext, NO)`.
    static func sourceExpression(for entity: NSEntityDescription) -> NSExpression {
        let request = NSExpression(node: .function(target: NSExpression(forVariable: "manager"), name: "fetchRequestForSourceEntityNamed:predicateString:",
                                                   arguments: [NSExpression(forConstantValue: entity.name ?? ""), NSExpression(forConstantValue: "TRUEPREDICATE")]))
        let context = NSExpression(node: .keyPath(operand: NSExpression(forVariable: "manager"), path: "sourceContext"))
        return NSFetchRequestExpression.expression(forFetch: request, context: context, countOnly: false)
    }

    /// The source key a property mapping reads, when its expression is `$source.<key>` (or Xcode's
    /// `FUNCTION($source, "valueForKey:", "<key>")`).
    static func sourceKey(of expression: NSExpression?) -> String? {
        guard let expression else { return nil }
        switch expression.node {
        case .keyPath(let operand, let path):
            if case .variable("source") = operand.node, !path.contains(".") { return path }
        case .function(let target?, let name, let arguments) where (name == "valueForKey:" || name == "valueForKeyPath:") && arguments.count == 1:
            guard case .variable("source") = target.node else { return nil }
            switch arguments[0].node {
            case .constant(let key as String) where !key.contains("."): return key
            case .keyPath(let operand, let path) where !path.contains("."):
                if case .evaluatedObject = operand.node { return path }
            default: break
            }
        default: break
        }
        return nil
    }

    // MARK: Matching

    private func sourceEntity(for entity: NSEntityDescription) -> NSEntityDescription? {
        if let identifier = entity.renamingIdentifier, !identifier.isEmpty, let match = source.entitiesByName[identifier] { return match }
        return source.entitiesByName[entity.name ?? ""]
    }

    private func sourceProperty(for property: NSPropertyDescription, in entity: NSEntityDescription) -> NSPropertyDescription? {
        if let identifier = property.renamingIdentifier, !identifier.isEmpty, let match = entity.propertiesByName[identifier] { return match }
        return entity.propertiesByName[property.name]
    }

    private func sourceAttribute(for attribute: NSAttributeDescription, in entity: NSEntityDescription) throws -> NSAttributeDescription? {
        guard let match = sourceProperty(for: attribute, in: entity) else { return nil }
        guard let sourceAttribute = match as? NSAttributeDescription, !sourceAttribute.isTransient else {
            throw Self.error("\(entity.name ?? "?").\(match.name) changed from a relationship to the attribute \(attribute.name)")
        }
        guard Self.canConvert(sourceAttribute.attributeType, to: attribute.attributeType) else {
            throw Self.error("cannot infer the conversion of \(entity.name ?? "?").\(match.name) from \(sourceAttribute.attributeType) to \(attribute.attributeType)")
        }
        return sourceAttribute
    }

    private func sourceRelationship(for relationship: NSRelationshipDescription, in entity: NSEntityDescription,
                                    sourceByDestination: [ObjectIdentifier: NSEntityDescription]) -> NSRelationshipDescription? {
        guard let match = sourceProperty(for: relationship, in: entity) as? NSRelationshipDescription, !match.isTransient,
            let target = relationship.destinationEntity, let sourceTarget = match.destinationEntity
        else { return nil }
        // The relationship keeps its members only if the old destination entity became (a kind of) the new one.
        guard let mappedTarget = destination.entities.first(where: { sourceByDestination[ObjectIdentifier($0)] === sourceTarget }),
            mappedTarget.isKindOf(entity: target)
        else { return nil }
        return match
    }

    /// "You cannot merge entity hierarchies": entities from different source hierarchies may not share a
    /// destination hierarchy (their primary keys would collide).
    private func checkHierarchies(_ sourceByDestination: [ObjectIdentifier: NSEntityDescription]) throws {
        var sourceRootByDestinationRoot: [ObjectIdentifier: NSEntityDescription] = [:]
        for entity in destination.entities {
            guard let match = sourceByDestination[ObjectIdentifier(entity)] else { continue }
            let root = ObjectIdentifier(entity.rootEntity)
            if let previous = sourceRootByDestinationRoot[root], previous !== match.rootEntity {
                throw Self.error("cannot merge entity hierarchies: \(previous.name ?? "?") and \(match.rootEntity.name ?? "?") have no common parent in the source model but share \(entity.rootEntity.name ?? "?") in the destination")
            }
            sourceRootByDestinationRoot[root] = match.rootEntity
        }
    }

    // MARK: Types

    private static let numeric: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
                                                       .decimalAttributeType, .doubleAttributeType, .floatAttributeType, .booleanAttributeType]
    private static let blobs: Set<NSAttributeType> = [.binaryDataAttributeType, .transformableAttributeType]

    /// Whether a lightweight migration converts values of `old` type to `new` (with SQL `CAST`).
    static func canConvert(_ old: NSAttributeType, to new: NSAttributeType) -> Bool {
        if old == new { return true }
        let textual: Set<NSAttributeType> = [.stringAttributeType, .URIAttributeType]
        if numeric.contains(old) && (numeric.contains(new) || new == .stringAttributeType) { return true }
        if old == .stringAttributeType && numeric.contains(new) { return true }
        if textual.contains(old) && textual.contains(new) { return true }
        return blobs.contains(old) && blobs.contains(new)
    }

    static func error(_ reason: String) -> NSError {
        CoreDataError.make(NSInferredMappingModelError, "Can't find or automatically infer mapping model for migration: \(reason)", userInfo: ["reason": reason])
    }
}
