/// What an executed `NSBatchUpdateRequest` returns in its result's `result`.
public enum NSBatchUpdateRequestResultType: UInt, Sendable, Hashable {
    /// `true` (an `NSNumber`) when the update succeeded.
    case statusOnlyResultType = 0
    /// The `NSManagedObjectID`s of the updated objects.
    case updatedObjectIDsResultType = 1
    /// The number of updated objects (an `NSNumber`).
    case updatedObjectsCountResultType = 2
}

/// A request that changes attributes of every object matching a predicate directly in the persistent store,
/// without loading the objects (one SQL `UPDATE` per chunk of rows in the SQLite store). Validation rules are not
/// applied, and each updated row's version (`Z_OPT`) is incremented, so contexts holding older values meet a merge
/// conflict if they save them.
///
/// `propertiesToUpdate` maps attribute names (or `NSAttributeDescription`s) to new values: constants, `nil`/`NSNull`,
/// or `NSExpression`s evaluated on each row's current values — `NSExpression(forKeyPath: "price")`,
/// `NSExpression(format: "price * 1.1")`, `NSExpression(forFunction: "add:to:", arguments: …)`. All expressions see
/// the values the row had before the update.
///
/// Contexts do not see the changes until you merge them:
/// ```swift
/// let request = NSBatchUpdateRequest(entityName: "Item")
/// request.predicate = NSPredicate(format: "stock == 0")
/// request.propertiesToUpdate = ["available": false, "version": NSExpression(format: "version + 1")]
/// request.resultType = .updatedObjectIDsResultType
/// let result = try context.execute(request) as! NSBatchUpdateResult
/// let ids = result.result as! [NSManagedObjectID]
/// NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [viewContext])
/// ```
open class NSBatchUpdateRequest: NSPersistentStoreRequest {
    private var _entity: NSEntityDescription?
    private let _entityName: String
    /// Which objects to update (all of the entity when nil).
    open var predicate: NSPredicate?
    /// Whether objects of sub-entities are updated too. Defaults to true.
    open var includesSubentities = true
    /// What the result holds. Defaults to `.statusOnlyResultType`.
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType
    /// The new values: attribute names (`String`) or `NSAttributeDescription`s to constants or `NSExpression`s.
    open var propertiesToUpdate: [AnyHashable: Any]?

    /// Creates a request that updates objects of the entity named `entityName`.
    ///
    /// For example:
    /// ```swift
    /// let request = NSBatchUpdateRequest(entityName: "Item")
    /// ```
    public init(entityName: String) {
        _entityName = entityName
        super.init()
    }

    /// Creates a request that updates objects of `entity`.
    ///
    /// For example:
    /// ```swift
    /// let request = NSBatchUpdateRequest(entity: Item.entity())
    /// ```
    public init(entity: NSEntityDescription) {
        _entity = entity
        _entityName = entity.name ?? ""
        super.init()
    }

    /// Apple's class-method spelling of `init(entityName:)`.
    ///
    /// For example:
    /// ```swift
    /// let request = NSBatchUpdateRequest.batchUpdateRequest(withEntityName: "Item")
    /// ```
    open class func batchUpdateRequest(withEntityName entityName: String) -> NSBatchUpdateRequest {
        NSBatchUpdateRequest(entityName: entityName)
    }

    /// The name of the entity whose objects are updated.
    open var entityName: String { _entity?.name ?? _entityName }

    /// The entity whose objects are updated (nil until the request runs when it was created with a name only).
    open var entity: NSEntityDescription! { _entity }

    open override var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = _entity.map { NSBatchUpdateRequest(entity: $0) } ?? NSBatchUpdateRequest(entityName: _entityName)
        copy.predicate = predicate
        copy.includesSubentities = includesSubentities
        copy.resultType = resultType
        copy.propertiesToUpdate = propertiesToUpdate
        copy.affectedStores = affectedStores
        return copy
    }

    open override var description: String {
        let keys = (propertiesToUpdate ?? [:]).keys.map { ($0.base as? NSPropertyDescription)?.name ?? "\($0.base)" }.sorted()
        return "<NSBatchUpdateRequest: entity: \(entityName); predicate: (\(predicate?.predicateFormat ?? "nil")); properties: \(keys); resultType: \(resultType.rawValue)>"
    }
}
