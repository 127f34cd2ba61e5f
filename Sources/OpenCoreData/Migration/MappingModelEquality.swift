import Foundation

// Equality of mapping models, entity mappings and property mappings: by content, as Apple's compare, so a mapping
// model found with `NSMappingModel(from:forSourceModel:destinationModel:)` equals the same file loaded with
// `NSMappingModel(contentsOf:)` (libraries that plan progressive migrations compare them with `==`).

extension NSMappingModel {
    /// Whether `other` has equal entity mappings (in any order): ``isEqual(_:)``.
    func hasSameContent(as other: NSMappingModel) -> Bool {
        if other === self { return true }
        let mine = Self.byName(entityMappings), theirs = Self.byName(other.entityMappings)
        return mine.count == theirs.count && zip(mine, theirs).allSatisfy { $0.hasSameContent(as: $1) }
    }

    /// A hash equal mapping models share: their entity mappings' names.
    var contentHash: Int {
        var hasher = Hasher()
        for mapping in Self.byName(entityMappings) { hasher.combine(mapping.name) }
        return hasher.finalize()
    }

    private static func byName(_ mappings: [NSEntityMapping]?) -> [NSEntityMapping] {
        (mappings ?? []).sorted { ($0.name ?? "") < ($1.name ?? "") }
    }
}

extension NSEntityMapping {
    /// Whether `other` has the same name, type, entities, version hashes, source expression, migration policy, user
    /// info and property mappings (each list in any order): ``isEqual(_:)``.
    func hasSameContent(as other: NSEntityMapping) -> Bool {
        if other === self { return true }
        return name == other.name && mappingType == other.mappingType
            && sourceEntityName == other.sourceEntityName && destinationEntityName == other.destinationEntityName
            && sourceEntityVersionHash == other.sourceEntityVersionHash && destinationEntityVersionHash == other.destinationEntityVersionHash
            && sourceExpression?.description == other.sourceExpression?.description
            && entityMigrationPolicyClassName == other.entityMigrationPolicyClassName
            && MappingUserInfo.equal(userInfo, other.userInfo)
            && Self.sameProperties(attributeMappings, other.attributeMappings)
            && Self.sameProperties(relationshipMappings, other.relationshipMappings)
    }


    private static func sameProperties(_ mine: [NSPropertyMapping]?, _ theirs: [NSPropertyMapping]?) -> Bool {
        let sort = { (mappings: [NSPropertyMapping]?) in (mappings ?? []).sorted { ($0.name ?? "") < ($1.name ?? "") } }
        let left = sort(mine), right = sort(theirs)
        return left.count == right.count && zip(left, right).allSatisfy { $0.hasSameContent(as: $1) }
    }
}

extension NSPropertyMapping {
    /// Whether `other` has the same name, value expression and user info: ``isEqual(_:)``.
    func hasSameContent(as other: NSPropertyMapping) -> Bool {
        if other === self { return true }
        return name == other.name && valueExpression?.description == other.valueExpression?.description
            && MappingUserInfo.equal(userInfo, other.userInfo)
    }

}

/// User info dictionaries of mappings compared as Foundation compares dictionaries.
enum MappingUserInfo {
    static func equal(_ mine: [AnyHashable: Any]?, _ theirs: [AnyHashable: Any]?) -> Bool {
        let left = mine ?? [:], right = theirs ?? [:]
        if left.isEmpty && right.isEmpty { return true }
        return NSDictionary(dictionary: left).isEqual(to: right)
    }
}
