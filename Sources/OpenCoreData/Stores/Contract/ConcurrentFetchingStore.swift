/// Stores that can run a fetch without the coordinator's lock, on a connection of their own, while another thread
/// holds the lock (a save writing, another fetch reading): the SQLite store with
/// `NSPersistentStoreConnectionPoolMaxSizeKey` of 2 or more. The coordinator hands them its row cache and a way to
/// try its lock: rows read this way may be recorded only while the lock is held and nothing was committed since they
/// were read (a row read before a save deleted it must not come back into the cache).
protocol ConcurrentFetchingStore: FetchingStore {
    /// Whether the store has connections to read without the coordinator's lock (fixed once the store is loaded).
    var readsWithoutCoordinatorLock: Bool { get }
    /// The fetch's result, or nil when the store cannot run it without the lock (no pool, or part of the request is
    /// evaluated in memory): the caller then fetches with the lock, as usual. `recordRows` runs `body` holding the
    /// coordinator's lock when it is free at once, and returns false without running it otherwise.
    func fetchWithoutCoordinatorLock(_ request: StoreFetchRequest, rowCache: RowCache,
                                     recordRows: (_ body: () -> Void) -> Bool) throws -> StoreFetchResult?
}
