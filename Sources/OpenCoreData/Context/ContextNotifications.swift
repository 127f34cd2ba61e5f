extension Notification.Name {
    /// Posted at the end of an event in which objects of a context were inserted, updated, deleted, refreshed
    /// or invalidated. The userInfo holds sets of objects under `NSInsertedObjectsKey`, `NSUpdatedObjectsKey`,
    /// `NSDeletedObjectsKey`, `NSRefreshedObjectsKey`, `NSInvalidatedObjectsKey`.
    public static let NSManagedObjectContextObjectsDidChange = Notification.Name("NSObjectsChangedInManagingContextNotification")
    /// Posted when a context is about to save.
    public static let NSManagedObjectContextWillSave = Notification.Name("NSManagingContextWillSaveChangesNotification")
    /// Posted after a context saved; the userInfo holds the saved objects under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey`. Pass it to `mergeChanges(fromContextDidSave:)`.
    public static let NSManagedObjectContextDidSave = Notification.Name("NSManagingContextDidSaveChangesNotification")
    /// Posted after a context saved, with object IDs (`NSInsertedObjectIDsKey`, …) instead of objects.
    public static let NSManagedObjectContextDidSaveObjectIDs = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted after a context merged changes, with object IDs.
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")
}

extension NSManagedObjectContext {
    /// The iOS 14+ name of `.NSManagedObjectContextObjectsDidChange`.
    public static let didChangeObjectsNotification = Notification.Name.NSManagedObjectContextObjectsDidChange
    /// The iOS 14+ name of `.NSManagedObjectContextWillSave`.
    public static let willSaveObjectsNotification = Notification.Name.NSManagedObjectContextWillSave
    /// The iOS 14+ name of `.NSManagedObjectContextDidSave`.
    public static let didSaveObjectsNotification = Notification.Name.NSManagedObjectContextDidSave
    /// The iOS 14+ name of `.NSManagedObjectContextDidSaveObjectIDs`.
    public static let didSaveObjectIDsNotification = Notification.Name.NSManagedObjectContextDidSaveObjectIDs
    /// The iOS 14+ name of `.NSManagedObjectContextDidMergeChangesObjectIDs`.
    public static let didMergeChangesObjectIDsNotification = Notification.Name.NSManagedObjectContextDidMergeChangesObjectIDs

    /// The userInfo keys of context notifications, in the iOS 14+ spelling.
    ///
    /// For example:
    /// ```swift
    /// let inserted = note.userInfo?[NSManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<NSManagedObject>
    /// ```
    public enum NotificationKey: RawRepresentable, Sendable, Hashable {
        // The raw values are written out (not a `String` raw type) so the RawRepresentable members are declared
        // API, as Apple's are.
        case sourceContext
        case queryGeneration
        case invalidatedAllObjects
        case insertedObjects
        case updatedObjects
        case deletedObjects
        case refreshedObjects
        case invalidatedObjects
        case insertedObjectIDs
        case updatedObjectIDs
        case deletedObjectIDs
        case refreshedObjectIDs
        case invalidatedObjectIDs

        /// The key's raw value is the `userInfo` key string.
        public typealias RawValue = String

        /// The `userInfo` key string (`"inserted"`, `"managedObjectContext"`, …).
        public var rawValue: String {
            switch self {
            case .sourceContext: "managedObjectContext"
            case .queryGeneration: "NSManagedObjectContextQueryGenerationKey"
            case .invalidatedAllObjects: "invalidatedAll"
            case .insertedObjects: "inserted"
            case .updatedObjects: "updated"
            case .deletedObjects: "deleted"
            case .refreshedObjects: "refreshed"
            case .invalidatedObjects: "invalidated"
            case .insertedObjectIDs: "inserted_objectIDs"
            case .updatedObjectIDs: "updated_objectIDs"
            case .deletedObjectIDs: "deleted_objectIDs"
            case .refreshedObjectIDs: "refreshed_objectIDs"
            case .invalidatedObjectIDs: "invalidated_objectIDs"
            }
        }

        /// The key whose `userInfo` key string is `rawValue`, or nil for any other string.
        public init?(rawValue: String) {
            switch rawValue {
            case "managedObjectContext": self = .sourceContext
            case "NSManagedObjectContextQueryGenerationKey": self = .queryGeneration
            case "invalidatedAll": self = .invalidatedAllObjects
            case "inserted": self = .insertedObjects
            case "updated": self = .updatedObjects
            case "deleted": self = .deletedObjects
            case "refreshed": self = .refreshedObjects
            case "invalidated": self = .invalidatedObjects
            case "inserted_objectIDs": self = .insertedObjectIDs
            case "updated_objectIDs": self = .updatedObjectIDs
            case "deleted_objectIDs": self = .deletedObjectIDs
            case "refreshed_objectIDs": self = .refreshedObjectIDs
            case "invalidated_objectIDs": self = .invalidatedObjectIDs
            default: return nil
            }
        }
    }
}

/// userInfo key: the inserted objects.
public let NSInsertedObjectsKey = "inserted"
/// userInfo key: the updated objects.
public let NSUpdatedObjectsKey = "updated"
/// userInfo key: the deleted objects.
public let NSDeletedObjectsKey = "deleted"
/// userInfo key: the refreshed objects.
public let NSRefreshedObjectsKey = "refreshed"
/// userInfo key: the invalidated objects.
public let NSInvalidatedObjectsKey = "invalidated"
/// userInfo key: every object was invalidated (after `reset()`).
public let NSInvalidatedAllObjectsKey = "invalidatedAll"
/// userInfo key: the IDs of inserted objects.
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
/// userInfo key: the IDs of updated objects.
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
/// userInfo key: the IDs of deleted objects.
public let NSDeletedObjectIDsKey = "deleted_objectIDs"
/// userInfo key: the IDs of refreshed objects.
public let NSRefreshedObjectIDsKey = "refreshed_objectIDs"
/// userInfo key: the IDs of invalidated objects.
public let NSInvalidatedObjectIDsKey = "invalidated_objectIDs"
/// userInfo key of a context's query generation.
public let NSManagedObjectContextQueryGenerationKey = "NSManagedObjectContextQueryGenerationKey"
