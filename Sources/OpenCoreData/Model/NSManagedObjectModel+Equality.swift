/// Equality of managed object models: two models describe the same schema, however they were loaded.
///
/// Apple's `NSManagedObjectModel` compares by content, so a model loaded twice from one file equals itself
/// (`NSManagedObjectModel(contentsOf: url) == NSManagedObjectModel(contentsOf: url)`): libraries that search a bundle
/// for "the model that opens this store" compare what they find with `==`. Two models are equal when they have the
/// same entities — equal version hashes (names, types, optionality, inheritance, relationships, hash modifiers), class
/// names, attribute default values, relationship delete rules and counts — the same configurations and the same fetch
/// request templates. Editability, the file a model came from and its version identifiers do not count.
///
/// For example:
/// ```swift
/// let first = NSManagedObjectModel(contentsOf: url)!
/// let second = NSManagedObjectModel(contentsOf: url)!
/// first == second          // true
/// first === second         // false: two instances
/// ```
extension NSManagedObjectModel {
    /// Whether `other` describes the same schema (``isEqual(_:)``).
    func hasSameSchema(as other: NSManagedObjectModel) -> Bool {
        if other === self { return true }
        guard entityVersionHashesByName == other.entityVersionHashesByName,
              _configurations.map(\.name) == other._configurations.map(\.name),
              _fetchRequestTemplates.map(\.name) == other._fetchRequestTemplates.map(\.name)
        else { return false }
        for (mine, theirs) in zip(_configurations, other._configurations) where Set(mine.entityNames) != Set(theirs.entityNames) {
            return false
        }
        for (mine, theirs) in zip(_fetchRequestTemplates, other._fetchRequestTemplates)
        where mine.template.entityName != theirs.template.entityName || mine.template.predicateFormat != theirs.template.predicateFormat
            || mine.template.settings != theirs.template.settings {
            return false
        }
        let theirEntities = other.entitiesByName
        for entity in _entities {
            guard let name = entity._name, let theirs = theirEntities[name], entity.hasSameDetails(as: theirs) else { return false }
        }
        return true
    }

    /// A hash that equal models share: their entity names.
    var schemaHash: Int {
        var hasher = Hasher()
        for name in _entities.compactMap(\._name).sorted() { hasher.combine(name) }
        return hasher.finalize()
    }
}

extension NSEntityDescription {
    /// What an entity's version hash leaves out but a model comparison counts: its class name, its attributes'
    /// default values and its relationships' delete rules and counts.
    fileprivate func hasSameDetails(as other: NSEntityDescription) -> Bool {
        guard managedObjectClassName == other.managedObjectClassName else { return false }
        let theirs = other.propertiesByName
        for property in properties {
            switch (property, theirs[property.name]) {
            case (let attribute as NSAttributeDescription, let other as NSAttributeDescription):
                if !Self.sameDefault(attribute.defaultValue, other.defaultValue) || attribute.valueTransformerName != other.valueTransformerName {
                    return false
                }
            case (let relationship as NSRelationshipDescription, let other as NSRelationshipDescription):
                if relationship.deleteRule != other.deleteRule || relationship.minCount != other.minCount
                    || relationship.maxCount != other.maxCount || relationship.inverseRelationship?.name != other.inverseRelationship?.name {
                    return false
                }
            case (_, nil):
                return false
            default:
                continue
            }
        }
        return true
    }

    /// Default values are property-list values (numbers, strings, dates, data, UUIDs, URLs): compared as their
    /// hashable selves when they are, else by description.
    private static func sameDefault(_ first: Any?, _ second: Any?) -> Bool {
        switch (first, second) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case (let first as AnyHashable, let second as AnyHashable): return first == second
        case (let first?, let second?): return String(describing: first) == String(describing: second)
        }
    }
}
