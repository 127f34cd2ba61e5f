/// The coordinator's door to its stores for writes: a context's save, its permanent IDs and the batch requests reach
/// the stores only through these calls (DESIGN.md §3), each with the lock held (re-entrant: a save holds it across
/// its stores).
extension NSPersistentStoreCoordinator {
    /// Applies one store's part of a save, atomically.
    func save(_ changes: StoreSaveChanges, to store: SnapshotStore, for requestContext: StoreRequestContext) throws -> StoreSaveResult {
        try withLock { try store.save(changes, requestContext: requestContext) }
    }

    /// Permanent IDs for newly inserted objects of one entity in `store`.
    func newObjectIDs(for objects: [NSManagedObject], in store: SnapshotStore) throws -> [NSManagedObjectID] {
        try withLock { try store.newObjectIDs(for: objects) }
    }

    /// Runs a batch insert in `store`.
    func executeBatchInsert(_ request: StoreBatchInsert, on store: BatchExecutingStore, for requestContext: StoreRequestContext) throws -> StoreBatchOutcome {
        try withLock { try store.executeBatchInsert(request, requestContext: requestContext) }
    }

    /// Runs a batch update in `store`.
    func executeBatchUpdate(_ request: StoreBatchUpdate, on store: BatchExecutingStore, for requestContext: StoreRequestContext) throws -> StoreBatchOutcome {
        try withLock { try store.executeBatchUpdate(request, requestContext: requestContext) }
    }

    /// Runs a batch delete in `store`.
    func executeBatchDelete(_ request: StoreBatchDelete, on store: BatchExecutingStore, for requestContext: StoreRequestContext) throws -> StoreBatchOutcome {
        try withLock { try store.executeBatchDelete(request, requestContext: requestContext) }
    }
}
