/// Store option: the most connections an SQLite store opens to its file (Apple's `NSPersistentStoreConnectionPoolMaxSizeKey`,
/// an `NSNumber`). With 2 or more, a file store in WAL journal mode reads through up to that many minus one read-only
/// connections besides its writer: a fetch from one context runs while another context's save writes, or while
/// another fetch reads, each on a committed snapshot (never a half-applied save). 1 — or a read-only, in-memory or
/// non-WAL store — keeps one connection, every read and write taking turns. Without the option: one connection.
///
/// For example:
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
///                                    options: [NSPersistentStoreConnectionPoolMaxSizeKey: 4])
/// ```
public let NSPersistentStoreConnectionPoolMaxSizeKey = "NSPersistentStoreConnectionPoolMaxSize"

extension SQLiteStore: ConcurrentFetchingStore {
    /// The pool size the options ask for (`NSPersistentStoreConnectionPoolMaxSizeKey`); 1 when absent or not a number.
    var connectionPoolMaxSize: Int {
        let value = options?[NSPersistentStoreConnectionPoolMaxSizeKey]
        return (value as? Int) ?? (value as? NSNumber)?.intValue ?? 1
    }

    var readsWithoutCoordinatorLock: Bool { readerPool != nil }

    /// Opens the reader pool after loading, when the option asks for more than one connection and the store can
    /// have readers beside its writer (a writable file store in WAL mode).
    func openReaderPool() {
        guard connectionPoolMaxSize > 1, !isReadOnly, supportsQueryGenerations, let connection else { return }
        _ = externalStorage   // made now, under the coordinator's lock: pooled reads use it without the lock
        readerPool = SQLiteReaderPool(path: path, configuration: connection.configuration, capacity: connectionPoolMaxSize - 1)
    }

    /// Runs the fetch on a pooled reader inside a read transaction (one committed snapshot for the whole statement).
    /// The rows are recorded in the row cache only when the coordinator's lock is free at once and the file's
    /// `PRAGMA data_version` shows no commit by any connection since the snapshot: then the rows are the current
    /// ones, as a fetch under the lock would have recorded them. Otherwise the rows go to the context unrecorded
    /// (they are what was committed when the fetch read; the cache keeps what the later write put there).
    func fetchWithoutCoordinatorLock(_ request: StoreFetchRequest, rowCache: RowCache,
                                     recordRows: (_ body: () -> Void) -> Bool) throws -> StoreFetchResult? {
        guard let pool = readerPool, let reader = try pool.acquire() else { return nil }
        defer { pool.release(reader) }
        try reader.beginTransaction(.deferred)
        // A deferred transaction fixes its snapshot at its first read; data_version is that snapshot's.
        _ = try reader.fetchValue("SELECT count(*) FROM Z_METADATA")
        let versionRead = try reader.fetchValue("PRAGMA data_version")
        let result: StoreFetchResult?
        do {
            result = try fetch(request, on: reader, pool: pool, requestContext: .unattributed)
            try reader.commit()
        } catch {
            try? reader.rollback()
            throw error
        }
        guard var result else { return nil }
        pool.testHookAfterRead?()
        if let snapshots = result.snapshots, !snapshots.isEmpty {
            var recorded = false
            _ = recordRows {
                // Outside a transaction, data_version moves when another connection has committed since.
                guard let current = try? reader.fetchValue("PRAGMA data_version"), current == versionRead else { return }
                rowCache.store(zip(result.objectIDs, snapshots))
                recorded = true
            }
            result.rowsNotInRowCache = !recorded
        }
        return result
    }
}
