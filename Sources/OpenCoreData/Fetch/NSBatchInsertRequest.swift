/// What an executed `NSBatchInsertRequest` returns in its result's `result`.
public enum NSBatchInsertRequestResultType: UInt, Sendable, Hashable {
    /// `true` (an `NSNumber`) when the insert succeeded.
    case statusOnly = 0
    /// The `NSManagedObjectID`s of the inserted objects, in the order they were given.
    case objectIDs = 1
    /// The number of objects inserted (an `NSNumber`).
    case count = 2
}

/// A request that inserts many objects into a persistent store at once, without creating managed objects in a
/// context: the store writes the rows directly (as SQL for the SQLite store), skipping validation.
///
/// Give the objects as dictionaries of attribute names to values, or produce them on demand with a handler that
/// fills a dictionary (or a managed object that is never inserted into a context) and returns `true` to stop.
/// Only attributes can be set — relationships cannot, as Apple documents ("each dictionary contains an
/// attribute name key and a value"); attributes a dictionary leaves out get their default values.
///
/// Contexts do not see the new objects until you merge them:
/// ```swift
/// let request = NSBatchInsertRequest(entityName: "Quake", objects: [
///     ["code": "ci1", "magnitude": 2.5],
///     ["code": "ci2", "magnitude": 4.1],
/// ])
/// request.resultType = .objectIDs
/// let result = try context.execute(request) as! NSBatchInsertResult
/// let ids = result.result as! [NSManagedObjectID]
/// NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSInsertedObjectsKey: ids], into: [viewContext])
/// ```
///
/// When the entity has uniqueness constraints, an object whose constrained values already exist is resolved by
/// the executing context's `mergePolicy`, as in Apple's "Loading and Displaying a Large Data Feed" sample: with
/// `NSMergeByPropertyObjectTrumpMergePolicy` (or `NSOverwriteMergePolicy`) the existing row takes the new values
/// (an upsert), with `NSMergeByPropertyStoreTrumpMergePolicy` (or `NSRollbackMergePolicy`) it is kept as it is,
/// and with the default `NSErrorMergePolicy` the whole request fails with `NSManagedObjectConstraintMergeError`.
open class NSBatchInsertRequest: NSPersistentStoreRequest {
    private var _entity: NSEntityDescription?
    private var _entityName: String
    /// The objects to insert, as dictionaries of attribute names to values.
    open var objectsToInsert: [[String: Any]]?
    /// Called repeatedly with an empty dictionary to fill with one object's values; return `true` to stop (the
    /// dictionary of that call is not inserted).
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// Called repeatedly with a new managed object of the entity (in no context) to set one object's attributes
    /// on; return `true` to stop (the object of that call is not inserted).
    open var managedObjectHandler: ((NSManagedObject) -> Bool)?
    /// What the result holds. Defaults to `.statusOnly`.
    open var resultType: NSBatchInsertRequestResultType = .statusOnly

    /// Creates a request without an entity (Apple deprecated this initializer; its request has no entity).
    ///
    /// For example:
    /// ```swift
    /// let request = NSBatchInsertRequest()   // prefer init(entityName:objects:)
    /// ```
    @available(*, deprecated, message: "Use init(entityName:objects:) or a handler-based initializer")
    public override init() {
        _entityName = ""
        super.init()
    }

    private init(entityName: String, entity: NSEntityDescription?) {
        _entityName = entityName
        _entity = entity
        super.init()
    }

    /// Creates a request that inserts objects described by dictionaries into the entity named `entityName`.
    ///
    /// For example:
    /// ```swift
    /// let request = NSBatchInsertRequest(entityName: "Item", objects: [["name": "a"], ["name": "b"]])
    /// ```
    public convenience init(entityName: String, objects dictionaries: [[String: Any]]) {
        self.init(entityName: entityName, entity: nil)
        objectsToInsert = dictionaries
    }

    /// Creates a request that inserts objects described by dictionaries into `entity`.
    ///
    /// For example:
    /// ```swift
    /// let request = NSBatchInsertRequest(entity: Item.entity(), objects: [["name": "a"]])
    /// ```
    public convenience init(entity: NSEntityDescription, objects dictionaries: [[String: Any]]) {
        self.init(entityName: entity.name ?? "", entity: entity)
        objectsToInsert = dictionaries
    }

    /// Creates a request whose objects a handler provides, one dictionary per call, until it returns `true`.
    ///
    /// For example:
    /// ```swift
    /// var index = 0
    /// let request = NSBatchInsertRequest(entity: Item.entity(), dictionaryHandler: { dictionary in
    ///     guard index < names.count else { return true }
    ///     dictionary["name"] = names[index]
    ///     index += 1
    ///     return false
    /// })
    /// ```
    public convenience init(entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entityName: entity.name ?? "", entity: entity)
        dictionaryHandler = handler
    }

    /// Creates a request whose objects a handler sets up, one managed object (in no context) per call, until it
    /// returns `true`.
    ///
    /// For example:
    /// ```swift
    /// var index = 0
    /// let request = NSBatchInsertRequest(entity: Item.entity(), managedObjectHandler: { object in
    ///     guard index < names.count else { return true }
    ///     (object as! Item).name = names[index]
    ///     index += 1
    ///     return false
    /// })
    /// ```
    public convenience init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(entityName: entity.name ?? "", entity: entity)
        managedObjectHandler = handler
    }

    /// Creates a request for the entity named `entityName` whose objects a dictionary handler provides.
    ///
    /// For example:
    /// ```swift
    /// let request = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in true })
    /// ```
    public convenience init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entityName: entityName, entity: nil)
        dictionaryHandler = handler
    }

    /// Creates a request for the entity named `entityName` whose objects a managed-object handler sets up.
    ///
    /// For example:
    /// ```swift
    /// let request = NSBatchInsertRequest(entityName: "Item", managedObjectHandler: { object in true })
    /// ```
    public convenience init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(entityName: entityName, entity: nil)
        managedObjectHandler = handler
    }

    /// The name of the entity the objects are inserted into.
    open var entityName: String { _entity?.name ?? _entityName }

    /// The entity the objects are inserted into (nil when the request was created with a name only; it is
    /// resolved against the coordinator's model when the request runs).
    open var entity: NSEntityDescription? { _entity }

    open override var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSBatchInsertRequest(entityName: _entityName, entity: _entity)
        copy.objectsToInsert = objectsToInsert
        copy.dictionaryHandler = dictionaryHandler
        copy.managedObjectHandler = managedObjectHandler
        copy.resultType = resultType
        copy.affectedStores = affectedStores
        return copy
    }

    open override var description: String {
        "<NSBatchInsertRequest: entity: \(entityName); objects: \(objectsToInsert.map { String($0.count) } ?? (dictionaryHandler != nil ? "dictionary handler" : managedObjectHandler != nil ? "managed object handler" : "none")); resultType: \(resultType.rawValue)>"
    }
}
