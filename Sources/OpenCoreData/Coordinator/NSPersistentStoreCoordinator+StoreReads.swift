/// The coordinator's door to its stores for reads: contexts ask here, never a store directly (DESIGN.md §3). Each
/// read takes the lock, skips a store another thread removed since the caller chose it, and records the rows it read
/// in the row cache the caller reads through before the lock is released (a save after it may change or delete them).
extension NSPersistentStoreCoordinator {
    /// The stored row of `objectID`, read for `requestContext` and recorded in `rowCache`; nil when no store holds it
    /// any more or the row is gone.
    func readSnapshot(of objectID: NSManagedObjectID, for requestContext: StoreRequestContext, recordingIn rowCache: RowCache) throws -> ObjectSnapshot? {
        guard let store = store(for: objectID) else { return nil }
        return try withLock(readingIfAttached: store) {
            try store.snapshot(for: objectID, requestContext: requestContext).map(rowCache.recorded(for: objectID))
        } ?? nil
    }

    /// The stored rows of `objectIDs`, one store call per store, recorded in `rowCache`.
    func readSnapshots(of objectIDs: [NSManagedObjectID], for requestContext: StoreRequestContext, recordingIn rowCache: RowCache) throws {
        guard !objectIDs.isEmpty else { return }
        let byStore = Dictionary(grouping: objectIDs) { store(for: $0).map(ObjectIdentifier.init) }
        for (key, ids) in byStore {
            guard key != nil, let store = store(for: ids[0]) else { continue }
            try withLock(readingIfAttached: store) {
                rowCache.store(try store.snapshots(for: ids, requestContext: requestContext).lazy.map { ($0.key, $0.value) })
            }
        }
    }

    /// The destinations of a to-many relationship of `objectID` as its store has them (none when no store holds it).
    func readRelatedObjectIDs(of objectID: NSManagedObjectID, through relationship: NSRelationshipDescription,
                              for requestContext: StoreRequestContext) throws -> [NSManagedObjectID] {
        guard let store = store(for: objectID) else { return [] }
        return try withLock(readingIfAttached: store) {
            try store.relatedObjectIDs(of: objectID, through: relationship, requestContext: requestContext)
        } ?? []
    }

    /// The members of a to-many relationship of several objects of one store (prefetching), with their rows, which are
    /// recorded in `rowCache`; nil when the store was removed meanwhile.
    func prefetchMembers(of objectIDs: [NSManagedObjectID], in store: SnapshotStore, through relationship: NSRelationshipDescription,
                         for requestContext: StoreRequestContext, recordingIn rowCache: RowCache) throws -> [[PrefetchedMember]]? {
        try withLock(readingIfAttached: store) {
            let members = try store.prefetchMembers(of: objectIDs, through: relationship, reusableRows: rowCache, requestContext: requestContext)
            if !store.recordsFetchedRows {
                rowCache.store(members.lazy.joined().compactMap { member in member.snapshot.map { (member.objectID, $0) } })
            }
            return members
        }
    }

    /// Runs a store fetch under the lock — or, when another thread holds the lock (a save writing, a fetch reading),
    /// the store has pooled readers (`NSPersistentStoreConnectionPoolMaxSizeKey`) and the asker is not pinned to a
    /// query generation, without it, on a reader of its own. The rows it read are in the row cache when the lock is
    /// released: a store that does not record them itself (the in-memory store) has them recorded here.
    func fetch(_ request: StoreFetchRequest, from store: FetchingStore, for requestContext: StoreRequestContext) throws -> StoreFetchResult {
        if requestContext.generation == nil, let concurrent = store as? ConcurrentFetchingStore, concurrent.readsWithoutCoordinatorLock {
            if lockObject.try() {
                defer { lockObject.unlock() }
                return try lockedFetch(request, from: store, for: requestContext)
            }
            let lock = lockObject
            let pooled = try concurrent.fetchWithoutCoordinatorLock(request, rowCache: rowCache) { body in
                guard lock.try() else { return false }
                defer { lock.unlock() }
                body()
                return true
            }
            if let pooled { return pooled }
        }
        return try lockedFetch(request, from: store, for: requestContext)
    }

    private func lockedFetch(_ request: StoreFetchRequest, from store: FetchingStore, for requestContext: StoreRequestContext) throws -> StoreFetchResult {
        try withLock {
            // A store another thread removed since the caller chose it (its connection closed) has nothing to fetch.
            guard store.persistentStoreCoordinator === self else {
                return StoreFetchResult(objectIDs: [], count: 0)
            }
            let result = try store.fetch(request, requestContext: requestContext)
            if !store.recordsFetchedRows, let snapshots = result.snapshots, let rowCache = request.reusableRows {
                rowCache.store(zip(result.objectIDs, snapshots))
            }
            return result
        }
    }
}

extension NSPersistentStoreCoordinator {
    /// Runs a grouped aggregate fetch in `store`, under the lock; nil when the store cannot express it (or was removed
    /// since the caller chose it: the caller's fallback then finds no rows either).
    func aggregate(_ request: StoreAggregateRequest, from store: AggregatingStore, for requestContext: StoreRequestContext) throws -> [StoreAggregateGroup]? {
        try withLock {
            guard store.persistentStoreCoordinator === self else { return nil }
            return try store.aggregate(request, requestContext: requestContext)
        }
    }
}
