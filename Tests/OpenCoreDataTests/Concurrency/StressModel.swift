import Foundation

@testable import OpenCoreData

/// The model of the concurrency stress suite, built in code:
/// - `Item`: stamp (Int64), title (String), count (Int64), score (Double), bucket (to-one, nullify);
/// - `Bucket`: name (String), stamp (Int64), items (to-many, nullify).
///
/// Every save writes a fresh, globally unique `stamp` into each object it updates, so a stamp names one committed
/// version of a row: the stamp a context last read (`committedValues(forKeys:)`) tells the oracle which version it
/// read, and the stamp in the file which version is current.
enum StressModel {
    static let shared: NSManagedObjectModel = make()

    /// The persistent properties the oracle compares, per entity (to-ones by the destination's primary key).
    static let trackedKeys: [String: [String]] = [
        "Item": ["stamp", "title", "count", "score", "bucket"],
        "Bucket": ["name", "stamp"],
    ]

    static func make() -> NSManagedObjectModel {
        let item = NSEntityDescription(), bucket = NSEntityDescription()
        item.name = "Item"
        item.managedObjectClassName = "NSManagedObject"
        bucket.name = "Bucket"
        bucket.managedObjectClassName = "NSManagedObject"
        let items = NSRelationshipDescription(), itemBucket = NSRelationshipDescription()
        items.name = "items"
        items.destinationEntity = item
        items.maxCount = 0
        items.deleteRule = .nullifyDeleteRule
        items.isOptional = true
        itemBucket.name = "bucket"
        itemBucket.destinationEntity = bucket
        itemBucket.maxCount = 1
        itemBucket.deleteRule = .nullifyDeleteRule
        itemBucket.isOptional = true
        items.inverseRelationship = itemBucket
        itemBucket.inverseRelationship = items
        item.properties = [attribute("stamp", .integer64AttributeType), attribute("title", .stringAttributeType),
                           attribute("count", .integer64AttributeType), attribute("score", .doubleAttributeType), itemBucket]
        bucket.properties = [attribute("name", .stringAttributeType), attribute("stamp", .integer64AttributeType), items]
        let model = NSManagedObjectModel()
        model.entities = [item, bucket]
        return model
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
