/// A fetch as the coordinator hands it to a store: managed objects in constants already replaced by their
/// object IDs, key paths checked against the model.
struct StoreFetchRequest {
    /// The entity to fetch.
    var entity: NSEntityDescription
    /// Whether objects of sub-entities match too.
    var includesSubentities: Bool
    /// Which rows match (nil: all).
    var predicate: NSPredicate?
    /// The order of the results.
    var sortDescriptors: [NSSortDescriptor]
    /// At most this many results (0: no limit), after skipping `fetchOffset`.
    var fetchLimit: Int
    var fetchOffset: Int
    /// Whether to return the matching rows' snapshots too (to realize objects without another query).
    var wantsSnapshots: Bool
    /// Whether only the count is wanted.
    var countOnly: Bool
    /// Rows the store may return instead of decoding a matching row again, when the cached row has the stored
    /// row's version (`Z_OPT`; only the SQLite store, whose writers all advance it, uses this). A store whose
    /// ``SnapshotStore/recordsFetchedRows`` is true also records the rows it returns there.
    var reusableRows: RowCache? = nil
}

/// What a store returns for a fetch.
struct StoreFetchResult {
    /// The matching objects, in order.
    var objectIDs: [NSManagedObjectID] = []
    /// Their rows, when asked for (same order).
    var snapshots: [ObjectSnapshot]?
    /// The number of matching rows (the count of `objectIDs`, or the count alone for count-only fetches).
    var count: Int = 0
    /// Whether the rows could not go into the coordinator's row cache (a fetch on a pooled reader while a write ran):
    /// the fetching context then realizes its faults with them, as they would have fired from the cache.
    var rowsNotInRowCache = false
}

/// Stores that can fetch (every store OpenCoreData ships).
protocol FetchingStore: SnapshotStore {
    /// Runs a fetch.
    func fetch(_ request: StoreFetchRequest, requestContext: StoreRequestContext) throws -> StoreFetchResult
}
