/// How an entity mapping creates its destination instances (Apple's `NSEntityMappingType`).
public enum NSEntityMappingType: UInt, Sendable {
    /// Not specified; a custom migration policy decides.
    case undefinedEntityMappingType = 0
    /// Instances are created by the mapping's `NSEntityMigrationPolicy` subclass.
    case customEntityMappingType = 1
    /// The destination entity is new: no instances are migrated.
    case addEntityMappingType = 2
    /// The source entity is gone: its instances are not migrated.
    case removeEntityMappingType = 3
    /// The entity is unchanged: instances are copied.
    case copyEntityMappingType = 4
    /// The entity changed: instances are transformed by the property mappings.
    case transformEntityMappingType = 5
}

/// How the instances of one source entity become instances of one destination entity in a migration.
///
/// For example:
/// ```swift
/// let mapping = NSEntityMapping()
/// mapping.name = "MoodToMood"
/// mapping.sourceEntityName = "Mood"
/// mapping.destinationEntityName = "Mood"
/// mapping.mappingType = .transformEntityMappingType
/// mapping.attributeMappings = [NSPropertyMapping(name: "rating", valueExpression: NSExpression(format: "$source.rating"))]
/// ```
open class NSEntityMapping: NSObject, @unchecked Sendable {
    // @unchecked Sendable: a mapping is configured before a migration starts and only read during it.

    /// The mapping's name (`"<Source>To<Destination>"` in inferred and Xcode mappings); used by
    /// `NSMigrationManager.destinationInstances(forEntityMappingName:sourceInstances:)`.
    open var name: String!
    /// How destination instances are created.
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType
    /// The source entity's name (nil for an add mapping).
    open var sourceEntityName: String?
    /// The source entity's version hash, to check the mapping against the source model.
    open var sourceEntityVersionHash: Data?
    /// The destination entity's name (nil for a remove mapping).
    open var destinationEntityName: String?
    /// The destination entity's version hash.
    open var destinationEntityVersionHash: Data?
    /// Attribute mappings: a value expression per destination attribute.
    open var attributeMappings: [NSPropertyMapping]?
    /// Relationship mappings: a value expression per destination relationship.
    open var relationshipMappings: [NSPropertyMapping]?
    /// The source instances to migrate; nil migrates every instance of the source entity (exactly that
    /// entity, not its sub-entities, as Apple's generated `FETCH` expression does).
    open var sourceExpression: NSExpression?
    /// Anything the mapping's policy needs.
    open var userInfo: [AnyHashable: Any]?
    /// The name of the `NSEntityMigrationPolicy` subclass that migrates the instances; nil uses the default
    /// policy. Register a Swift class under the name a mapping file stores with
    /// `NSEntityMigrationPolicy.register(_:forClassName:)` (Linux has no class lookup by name).
    open var entityMigrationPolicyClassName: String?

    public override init() { super.init() }

    /// Whether `object` is an entity mapping with the same name, type, entities, version hashes, source expression,
    /// migration policy, user info and property mappings (each list in any order).
    ///
    /// For example:
    /// ```swift
    /// first.entityMappingsByName["MoodToMood"] == second.entityMappingsByName["MoodToMood"]
    /// ```
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSEntityMapping else { return false }
        return hasSameContent(as: other)
    }

    /// A hash equal entity mappings share (their name).
    open override var hash: Int { name?.hashValue ?? 0 }

    open override var description: String {
        "<NSEntityMapping \(name ?? "nil"): \(sourceEntityName ?? "nil") → \(destinationEntityName ?? "nil"), type \(mappingType.rawValue)>"
    }

    /// The attribute mapping for a destination attribute.
    func attributeMapping(named name: String) -> NSPropertyMapping? {
        attributeMappings?.first { $0.name == name }
    }

    /// The relationship mapping for a destination relationship.
    func relationshipMapping(named name: String) -> NSPropertyMapping? {
        relationshipMappings?.first { $0.name == name }
    }
}
