/// What an executed `NSBatchDeleteRequest` returns in its result's `result`.
public enum NSBatchDeleteRequestResultType: UInt, Sendable, Hashable {
    /// `true` (an `NSNumber`) when the delete succeeded.
    case resultTypeStatusOnly = 0
    /// The `NSManagedObjectID`s of the deleted objects (those the request matched).
    case resultTypeObjectIDs = 1
    /// The number of deleted objects (an `NSNumber`).
    case resultTypeCount = 2
}

/// A request that deletes every object a fetch request matches (or the objects of a list of IDs) directly in the
/// persistent store, without loading them into memory. Validation rules are not applied.
///
/// Relationship delete rules are applied in the store, as Apple's Core Data does for batch deletes: related rows
/// are deleted for `cascade`, their inverse is cleared for `nullify` (the request fails if that inverse is
/// mandatory and still points at a deleted object), nothing happens for `noAction`, and a request that could reach
/// a relationship with the `deny` rule fails before deleting anything. See `BatchDeleteRules` for the evidence.
///
/// Contexts do not see the deletions until you merge them:
/// ```swift
/// let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
/// fetch.predicate = NSPredicate(format: "expires < %@", Date() as NSDate)
/// let request = NSBatchDeleteRequest(fetchRequest: fetch)
/// request.resultType = .resultTypeObjectIDs
/// let result = try context.execute(request) as! NSBatchDeleteResult
/// let ids = result.result as! [NSManagedObjectID]
/// NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [viewContext])
/// ```
/// The result lists the objects the request matched; objects deleted by cascade rules are not listed (merge them
/// by refreshing, or let their faults fire as deleted objects).
open class NSBatchDeleteRequest: NSPersistentStoreRequest {
    /// The fetch request that selects the objects to delete.
    public let fetchRequest: NSFetchRequest<NSFetchRequestResult>
    /// The objects to delete, when the request was created from object IDs.
    let objectIDs: [NSManagedObjectID]?
    /// What the result holds. Defaults to `.resultTypeStatusOnly`.
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly

    /// Creates a request that deletes the objects `fetch` matches: its entity, predicate and `includesSubentities`
    /// select them; with a `fetchLimit` or `fetchOffset`, only the objects the fetch would return (in the order of
    /// its sort descriptors) are deleted — a way to delete in chunks.
    ///
    /// For example:
    /// ```swift
    /// let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Item"))
    /// ```
    public init(fetchRequest fetch: NSFetchRequest<NSFetchRequestResult>) {
        fetchRequest = fetch
        objectIDs = nil
        super.init()
    }

    /// Creates a request that deletes the objects with the given IDs, which must all be of the same entity
    /// (mixing entities makes the request fail when it runs, as Apple documents).
    ///
    /// For example:
    /// ```swift
    /// let request = NSBatchDeleteRequest(objectIDs: [first.objectID, second.objectID])
    /// ```
    public init(objectIDs objects: [NSManagedObjectID]) {
        let fetch = NSFetchRequest<NSFetchRequestResult>()
        if let first = objects.first { fetch.entity = first.entity }
        fetch.predicate = NSPredicate(format: "self IN %@", argumentArray: [objects])
        fetchRequest = fetch
        objectIDs = objects
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy: NSBatchDeleteRequest
        if let objectIDs {
            copy = NSBatchDeleteRequest(objectIDs: objectIDs)
        } else {
            copy = NSBatchDeleteRequest(fetchRequest: fetchRequest.copy() as! NSFetchRequest<NSFetchRequestResult>)
        }
        copy.resultType = resultType
        copy.affectedStores = affectedStores
        return copy
    }

    open override var description: String {
        "<NSBatchDeleteRequest: \(objectIDs.map { "\($0.count) object IDs" } ?? fetchRequest.description); resultType: \(resultType.rawValue)>"
    }
}
