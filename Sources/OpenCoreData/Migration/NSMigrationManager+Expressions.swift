// The migration manager's answers to mapping expressions: `$manager.sourceContext` (key-value coding) and the
// methods `FUNCTION($manager, …)` calls.

extension NSMigrationManager {
    /// The destination instances of `sourceInstances`, members of the source relationship named `name`, whichever
    /// entity mapping migrated them: Apple's inferred mappings set relationships with
    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "<name>", $source.<name>)`,
    /// so members of sub-entities of the relationship's destination (each migrated by its own mapping) are found.
    /// The mappings searched are those whose source entity is a kind of the source relationship's destination and
    /// whose destination entity is a kind of the destination relationship's (the property mapping being evaluated).
    func destinationInstances(forSourceRelationshipNamed name: String, sourceInstances: [NSManagedObject]) throws -> [NSManagedObject] {
        guard let entityMapping = _currentEntityMapping, let sourceEntity = self.sourceEntity(for: entityMapping) else {
            throw PredicateError.evaluation("destinationInstancesForSourceRelationshipNamed:sourceInstances: needs a current entity mapping")
        }
        guard let sourceRelationship = sourceEntity.relationshipsByName[name], let sourceTarget = sourceRelationship.destinationEntity else {
            throw PredicateError.evaluation("Can't find relationship for name (\(name)) for entity (\(sourceEntity.name ?? "?")) in source model.")
        }
        let destinationTarget = _currentPropertyMapping?.name.flatMap { destinationEntity(for: entityMapping)?.relationshipsByName[$0]?.destinationEntity }
        let candidates = (mappingModel.entityMappings ?? []).filter { candidate in
            guard let from = self.sourceEntity(for: candidate), from.isKindOf(entity: sourceTarget) else { return false }
            guard let destinationTarget else { return true }
            return self.destinationEntity(for: candidate)?.isKindOf(entity: destinationTarget) ?? false
        }
        var result: [NSManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        for sourceInstance in sourceInstances {
            for candidate in candidates {
                for destination in destinationsBySource[candidate.name ?? ""]?[sourceInstance.objectID] ?? [] where seen.insert(ObjectIdentifier(destination)).inserted {
                    result.append(destination)
                }
            }
        }
        return result
    }

    /// Key-value coding of the manager, for `$manager.sourceContext` and the like in mapping expressions.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "sourceContext": return _sourceContext
        case "destinationContext": return _destinationContext
        case "sourceModel": return sourceModel
        case "destinationModel": return destinationModel
        case "mappingModel": return mappingModel
        case "currentEntityMapping": return _currentEntityMapping
        case "userInfo": return userInfo
        case "migrationProgress": return migrationProgress
        default: return nil
        }
    }
}

extension NSMigrationManager: PredicateFunctionTarget {
    /// The migration manager's methods mapping expressions call with `FUNCTION($manager, …)`.
    package func invokePredicateFunction(_ selector: String, arguments: [Any?]) throws -> Any? {
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            guard let name = arguments.first as? String else { throw PredicateError.evaluation("\(selector) needs an entity mapping name") }
            let sources = arguments.count > 1 ? NSEntityMigrationPolicy.objects(in: arguments[1]) : []
            return destinationInstances(forEntityMappingName: name, sourceInstances: sources)
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            guard let name = arguments.first as? String else { throw PredicateError.evaluation("\(selector) needs an entity mapping name") }
            let destinations = arguments.count > 1 ? NSEntityMigrationPolicy.objects(in: arguments[1]) : []
            return sourceInstances(forEntityMappingName: name, destinationInstances: destinations)
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            guard let name = arguments.first as? String else { throw PredicateError.evaluation("\(selector) needs a relationship name") }
            let sources = arguments.count > 1 ? NSEntityMigrationPolicy.objects(in: arguments[1]) : []
            return try destinationInstances(forSourceRelationshipNamed: name, sourceInstances: sources)
        case "fetchRequestForSourceEntityNamed:predicateString:":
            guard let name = arguments.first as? String else { throw PredicateError.evaluation("\(selector) needs an entity name") }
            let request = NSFetchRequest<NSManagedObject>(entityName: name)
            request.includesSubentities = false
            if arguments.count > 1, let format = arguments[1] as? String, format != "TRUEPREDICATE" {
                request.predicate = try NSPredicate(validatingFormat: format, argumentArray: nil)
            }
            return request
        default:
            throw PredicateError.evaluation("NSMigrationManager does not respond to the selector \(selector)")
        }
    }
}
