/// The base class of custom stores that load and save objects on demand, with Apple's API: subclass it,
/// register the subclass under a type name, and add a store of that type to a coordinator. The coordinator calls
/// `loadMetadata()` when the store is added, `execute(_:with:)` for fetches and saves,
/// `newValuesForObject(with:with:)` to fire a fault, `newValue(forRelationship:forObjectWith:with:)` for a to-many
/// relationship, and `obtainPermanentIDs(for:)` for new objects.
///
/// For example:
/// ```swift
/// final class DictionaryStore: NSIncrementalStore {
///     override var type: String { "Dictionary" }
///     override func loadMetadata() throws {
///         metadata = [NSStoreTypeKey: "Dictionary", NSStoreUUIDKey: UUID().uuidString]
///     }
///     // execute(_:with:), newValuesForObject(with:with:), newValue(forRelationship:forObjectWith:with:),
///     // obtainPermanentIDs(for:) …
/// }
/// NSPersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: "Dictionary")
/// ```
open class NSIncrementalStore: NSPersistentStore, @unchecked Sendable {
    // @unchecked Sendable: a subclass's state is accessed under the coordinator's lock, like every store's.

    /// The identifier a new store at `storeURL` should use (a new UUID string by default).
    open class func identifierForNewStore(at storeURL: URL) -> Any {
        UUID().uuidString
    }

    /// The metadata of the store at `url`, read without adding it: by default a store of this class is made for
    /// `url` and its `loadMetadata()` answers. Override it when reading the metadata alone is cheaper.
    ///
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: "JSON", at: url)
    /// ```
    open override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        let store = self.init(persistentStoreCoordinator: nil, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        try store.loadMetadata()
        return store.metadata ?? [:]
    }

    /// Loads the store's metadata: the coordinator calls it when the store is added (and
    /// `metadataForPersistentStore(with:)` when metadata is asked for without adding). An override must set
    /// `metadata` with at least `NSStoreTypeKey` and `NSStoreUUIDKey`, or throw; adding a store whose metadata lacks
    /// them throws `NSPersistentStoreOperationError`. The default sets nothing.
    ///
    /// ```swift
    /// override func loadMetadata() throws {
    ///     metadata = [NSStoreTypeKey: type, NSStoreUUIDKey: try readStoreUUID()]
    /// }
    /// ```
    open override func loadMetadata() throws {
        try super.loadMetadata()
    }

    /// Runs a fetch (`NSFetchRequest`, returning an array of objects, object IDs, dictionaries or one count
    /// `NSNumber`, as its `resultType` asks) or a save (`NSSaveChangesRequest`, returning an empty array).
    /// The default throws: a store must override it.
    open func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        throw CoreDataError.make(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not implement execute(_:with:)")
    }

    /// The values of an object, to fire its fault. The default throws: a store must override it.
    open func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        throw CoreDataError.make(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not implement newValuesForObject(with:with:)")
    }

    /// The destination of a relationship of an object: an `NSManagedObjectID` (or `NSNull`) for a to-one, a
    /// collection of object IDs for a to-many. The default throws: a store must override it.
    open func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID, with context: NSManagedObjectContext?) throws -> Any {
        throw CoreDataError.make(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not implement newValue(forRelationship:forObjectWith:with:)")
    }

    /// Permanent IDs for newly inserted objects, in order. The default throws: a store must override it.
    open func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        throw CoreDataError.make(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not implement obtainPermanentIDs(for:)")
    }

    /// Told when a context registers objects of this store (the default does nothing).
    open func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// Told when a context unregisters objects of this store (the default does nothing).
    open func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// The object ID of an object of this store, from the store's own reference (a number or a string, say).
    ///
    /// ```swift
    /// let id = newObjectID(for: bookEntity, referenceObject: 42)
    /// referenceObject(for: id) as? Int   // 42
    /// ```
    open func newObjectID(for entity: NSEntityDescription, referenceObject data: Any) -> NSManagedObjectID {
        let reference = NSManagedObjectID.ReferenceObject(value: (data as? AnyHashable) ?? AnyHashable("\(data)"))
        return NSManagedObjectID(entity: entity, key: .reference(reference), store: self)
    }

    /// The reference object an object ID of this store was made from.
    open func referenceObject(for objectID: NSManagedObjectID) -> Any {
        if case .reference(let reference) = objectID.key { return reference.value.base }
        if case .primaryKey(let key) = objectID.key { return key }
        return objectID.uriRepresentation().absoluteString
    }
}
