/// The kinds of request a persistent store executes.
public enum NSPersistentStoreRequestType: UInt, Sendable, Hashable {
    case fetchRequestType = 1
    case saveRequestType = 2
    case batchInsertRequestType = 5
    case batchUpdateRequestType = 6
    case batchDeleteRequestType = 7
}

/// A request a persistent store executes: a fetch, a save, or a batch operation.
///
/// For example:
/// ```swift
/// let request: NSPersistentStoreRequest = Mood.fetchRequest()
/// print(request.requestType)   // .fetchRequestType
/// ```
open class NSPersistentStoreRequest: NSObject, NSCopying {
    /// The stores the request goes to (all of the coordinator's when nil).
    open var affectedStores: [NSPersistentStore]?

    public override init() { super.init() }

    /// The kind of request.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreRequest()
        copy.affectedStores = affectedStores
        return copy
    }
}

/// The result of executing a persistent store request.
open class NSPersistentStoreResult: NSObject {
    public override init() { super.init() }
}

/// A save, as a custom store receives it: the objects inserted, updated, deleted and locked.
///
/// For example:
/// ```swift
/// let request = NSSaveChangesRequest(inserted: [mood], updated: nil, deleted: nil, locked: nil)
/// ```
open class NSSaveChangesRequest: NSPersistentStoreRequest {
    /// The objects to insert.
    public let insertedObjects: Set<NSManagedObject>?
    /// The objects to update.
    public let updatedObjects: Set<NSManagedObject>?
    /// The objects to delete.
    public let deletedObjects: Set<NSManagedObject>?
    /// Unchanged objects whose versions must still be checked.
    public let lockedObjects: Set<NSManagedObject>?

    /// Creates a save request.
    public init(inserted insertedObjects: Set<NSManagedObject>?, updated updatedObjects: Set<NSManagedObject>?, deleted deletedObjects: Set<NSManagedObject>?, locked lockedObjects: Set<NSManagedObject>?) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
        self.lockedObjects = lockedObjects
        super.init()
    }

    /// Apple's Objective-C-derived spelling.
    public convenience init(insertedObjects: Set<NSManagedObject>?, updatedObjects: Set<NSManagedObject>?, deletedObjects: Set<NSManagedObject>?, lockedObjects: Set<NSManagedObject>?) {
        self.init(inserted: insertedObjects, updated: updatedObjects, deleted: deletedObjects, locked: lockedObjects)
    }

    open override var requestType: NSPersistentStoreRequestType { .saveRequestType }
}
