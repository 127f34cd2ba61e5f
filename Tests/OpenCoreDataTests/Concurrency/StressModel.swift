import Foundation

@testable import OpenCoreData

/// The model of the concurrency stress suite, built in code, with every delete rule:
/// - `Item`: stamp (Int64), title (String), count (Int64), score (Double);
///   `bucket` (to-one, nullify) ↔ `Bucket.items` (to-many, nullify);
///   `queuedIn` (to-one, nullify) ↔ `Bucket.queue` (ordered to-many, cascade);
///   `tags` (to-many, no action) ↔ `Tag.items` (to-many, deny).
/// - `Bucket`: name (String), stamp (Int64). `Tag`: name (String), stamp (Int64).
///
/// Every save writes a fresh, globally unique `stamp` into each object it updates, so a stamp names one committed
/// version of a row: the stamp a context last read (`committedValues(forKeys:)`) tells the oracle which version it
/// read, and the stamp in the file which version is current.
enum StressModel {
    static let shared: NSManagedObjectModel = make()

    static let entities = ["Item", "Bucket", "Tag"]

    /// The persistent attributes and to-ones the oracle compares, per entity (to-ones by the destination's primary key).
    static let trackedKeys: [String: [String]] = [
        "Item": ["stamp", "title", "count", "score", "bucket", "queuedIn"],
        "Bucket": ["name", "stamp"],
        "Tag": ["name", "stamp"],
    ]

    /// The to-one keys among the tracked keys, with their destination entity.
    static let toOneKeys: [String: String] = ["bucket": "Bucket", "queuedIn": "Bucket"]
    /// Each to-one of an item with the bucket's to-many on its other side.
    static let toOneInverses: [String: String] = ["bucket": "items", "queuedIn": "queue"]

    static func make() -> NSManagedObjectModel {
        let item = entity("Item"), bucket = entity("Bucket"), tag = entity("Tag")
        let bucketPair = pair(relationship("bucket", to: bucket, toMany: false, rule: .nullifyDeleteRule),
                              relationship("items", to: item, toMany: true, rule: .nullifyDeleteRule))
        let queuePair = pair(relationship("queuedIn", to: bucket, toMany: false, rule: .nullifyDeleteRule),
                             relationship("queue", to: item, toMany: true, ordered: true, rule: .cascadeDeleteRule))
        let tagPair = pair(relationship("tags", to: tag, toMany: true, rule: .noActionDeleteRule),
                           relationship("items", to: item, toMany: true, rule: .denyDeleteRule))
        item.properties = [attribute("stamp", .integer64AttributeType), attribute("title", .stringAttributeType),
                           attribute("count", .integer64AttributeType), attribute("score", .doubleAttributeType),
                           bucketPair[0], queuePair[0], tagPair[0]]
        bucket.properties = [attribute("name", .stringAttributeType), attribute("stamp", .integer64AttributeType), bucketPair[1], queuePair[1]]
        tag.properties = [attribute("name", .stringAttributeType), attribute("stamp", .integer64AttributeType), tagPair[1]]
        let model = NSManagedObjectModel()
        model.entities = [item, bucket, tag]
        return model
    }

    private static func entity(_ name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = "NSManagedObject"
        return entity
    }

    private static func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool, ordered: Bool = false,
                                     rule: NSDeleteRule) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.maxCount = toMany ? 0 : 1
        relationship.isOrdered = ordered
        relationship.deleteRule = rule
        relationship.isOptional = true
        return relationship
    }

    private static func pair(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) -> [NSRelationshipDescription] {
        a.inverseRelationship = b
        b.inverseRelationship = a
        return [a, b]
    }

    private static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = true
        return attribute
    }

    /// A container on the SQLite file at `url`, its stores loaded (the parent's and the child process's stacks).
    static func container(at url: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Stress", managedObjectModel: shared)
        let description = NSPersistentStoreDescription(url: url)
        description.type = NSSQLiteStoreType
        description.setOption(NSNumber(value: 30), forKey: NSPersistentStoreTimeoutOption)
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }
}
