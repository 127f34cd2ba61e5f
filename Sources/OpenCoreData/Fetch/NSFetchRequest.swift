/// A type a fetch request can return: managed objects, object IDs, dictionaries, counts.
///
/// A marker protocol, as Apple's. `NSFetchRequest`'s result type is unconstrained on Linux (a protocol
/// existential does not conform to itself without the Objective-C runtime, so the common spelling
/// `NSFetchRequest<NSFetchRequestResult>` could not compile with a constraint).
public protocol NSFetchRequestResult {}

extension NSManagedObject: NSFetchRequestResult {}
extension NSManagedObjectID: NSFetchRequestResult {}
extension NSNumber: NSFetchRequestResult {}
extension NSDictionary: NSFetchRequestResult {}

/// What a fetch request returns.
public struct NSFetchRequestResultType: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Managed objects (the default).
    public static let managedObjectResultType = NSFetchRequestResultType([])
    /// Object IDs.
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1)
    /// Dictionaries of property values.
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 2)
    /// The number of matching objects.
    public static let countResultType = NSFetchRequestResultType(rawValue: 4)
}

/// A search for objects of an entity: which ones (`predicate`), in what order (`sortDescriptors`), how many,
/// and in what form (`resultType`).
///
/// For example:
/// ```swift
/// let request = NSFetchRequest<Mood>(entityName: "Mood")
/// request.predicate = NSPredicate(format: "rating >= %d", 3)
/// request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
/// request.fetchLimit = 10
/// let moods = try context.fetch(request)
/// ```
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest {
    private var _entity: NSEntityDescription?
    private var _entityName: String?
    /// Which objects match.
    open var predicate: NSPredicate?
    /// The order of the results (unordered when nil).
    open var sortDescriptors: [NSSortDescriptor]?
    /// The maximum number of results (0: no limit).
    open var fetchLimit = 0
    /// How many matching objects to skip.
    open var fetchOffset = 0
    /// How many objects to load at a time (0: all).
    open var fetchBatchSize = 0
    /// Whether objects of sub-entities match too. Defaults to true.
    open var includesSubentities = true
    /// Whether unsaved changes of the context are taken into account. Defaults to true.
    open var includesPendingChanges = true
    /// Whether property values are loaded with the objects. Defaults to true.
    open var includesPropertyValues = true
    /// Whether objects come back as faults. Defaults to true.
    open var returnsObjectsAsFaults = true
    /// What the request returns.
    open var resultType: NSFetchRequestResultType = .managedObjectResultType
    /// The stores the fetch searches (all of the coordinator's stores that hold the entity when nil).
    ///
    /// ```swift
    /// request.affectedStores = [archiveStore]   // only the archive is searched
    /// ```
    open override var affectedStores: [NSPersistentStore]? {
        get { super.affectedStores }
        set { super.affectedStores = newValue }
    }
    /// The properties to fetch (names or descriptions), for dictionary results and partial faults.
    open var propertiesToFetch: [Any]?
    /// The properties to group by, for dictionary results.
    open var propertiesToGroupBy: [Any]?
    /// A predicate on the groups, for dictionary results.
    open var havingPredicate: NSPredicate?
    /// Whether dictionary results are distinct.
    open var returnsDistinctResults = false
    /// Relationships to load together with the objects.
    open var relationshipKeyPathsForPrefetching: [String]?
    /// Whether refetched objects get the store's values even if already in the context.
    open var shouldRefreshRefetchedObjects = false

    /// Creates a request; set `entity` (or use `init(entityName:)`).
    public override init() { super.init() }

    /// Creates a request for the entity named `entityName`.
    public convenience init(entityName: String) {
        self.init()
        _entityName = entityName
    }

    /// The entity to fetch (resolved from `entityName` against the context's model when fetching).
    open var entity: NSEntityDescription? {
        get { _entity }
        set {
            _entity = newValue
            _entityName = newValue?.name
        }
    }

    /// The name of the entity to fetch.
    open var entityName: String? { _entity?.name ?? _entityName }

    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// Executes the request in the context whose `perform`/`performAndWait` block is running.
    ///
    /// For example:
    /// ```swift
    /// context.performAndWait { let moods = try? Mood.fetchRequest().execute() }
    /// ```
    open func execute() throws -> [ResultType] {
        guard let context = NSManagedObjectContext.current else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "NSFetchRequest.execute() must be called inside a context's perform or performAndWait block.")
        }
        return try context.fetch(self)
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchRequest<ResultType>()
        copy._entity = _entity
        copy._entityName = _entityName
        copy.predicate = predicate
        copy.sortDescriptors = sortDescriptors
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.includesPropertyValues = includesPropertyValues
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.resultType = resultType
        copy.propertiesToFetch = propertiesToFetch
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.returnsDistinctResults = returnsDistinctResults
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        copy.affectedStores = affectedStores
        return copy
    }

    open override var description: String {
        "<NSFetchRequest: entity: \(entityName ?? "nil"); predicate: (\(predicate?.predicateFormat ?? "nil")); sortDescriptors: (\(sortDescriptors?.map(\.description).joined(separator: ", ") ?? "nil")); limit: \(fetchLimit); type: \(resultType.rawValue)>"
    }
}

extension NSManagedObject {
    /// A fetch request for this class's entity.
    ///
    /// For example:
    /// ```swift
    /// let request = Mood.fetchRequest()   // NSFetchRequest<NSFetchRequestResult> for entity "Mood"
    /// ```
    public class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = entity()
        return request
    }
}

/// A fetch request of any result type (the generic parameter is not known where a request arrives as an
/// `NSPersistentStoreRequest`).
protocol AnyFetchRequest: NSPersistentStoreRequest {
    /// Runs the fetch in `context`, results as `Any`.
    func results(in context: NSManagedObjectContext) throws -> [Any]
    /// Runs the fetch in `context`; the result as `execute(_:)` returns it.
    func finishedResult(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult
}

extension NSFetchRequest: AnyFetchRequest {
    func results(in context: NSManagedObjectContext) throws -> [Any] {
        try context.executeFetch(self)
    }
}
