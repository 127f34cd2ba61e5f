import CSQLite
import Foundation

/// Destroying and replacing SQLite store files, for `NSPersistentStoreCoordinator.destroyPersistentStore` and
/// `replacePersistentStore`. Apple's header: "It is not possible to unlink a database file safely out from underneath
/// another thread or process, so this API performs a truncation" — so the files stay where they are and every other
/// connection to them (another coordinator, another process) keeps a consistent view: an empty database after a
/// destroy, the source's contents after a replacement.
extension SQLiteStore {
    // MARK: Destroying

    /// Empties the store at `url` in place: its file stays, as an empty SQLite database; its `-wal` and `-shm` files
    /// stay if they were there (the `-wal` emptied); its external binary data is deleted. The tables are dropped in an
    /// exclusive transaction (so another writer's lock is honoured for the store's timeout), then the file is vacuumed
    /// and its WAL checkpointed. A file that is not an SQLite database (damaged, foreign, or zero bytes), or a store
    /// locked by another writer when `NSPersistentStoreForceDestroyOption` is set, is truncated to zero bytes.
    /// `/dev/null` (an in-memory database) has no files. A missing file throws `NSFileNoSuchFileError`.
    /// `removeOpenStores` removes the coordinator's stores at `url` (closing their connections, which may delete the
    /// -wal and -shm: which of them were there is noted first).
    ///
    /// ```swift
    /// try SQLiteStore.destroyFiles(at: url, options: nil, removingOpenStores: {})
    /// ```
    static func destroyFiles(at url: URL, options: [AnyHashable: Any]?, removingOpenStores removeOpenStores: () throws -> Void) throws {
        guard url.isFileURL else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "An SQLite store needs a file URL (got \(url.absoluteString))")
        }
        let path = url.path
        let fileManager = FileManager.default
        let companions = ["-wal", "-shm"].filter { fileManager.fileExists(atPath: path + $0) }
        try removeOpenStores()
        guard path != inMemoryPath else { return }
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw CoreDataError.make(NSFileNoSuchFileError, "There is no store to destroy at \(path)",
                                     userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOENT))])
        }
        let forced = (options?[NSPersistentStoreForceDestroyOption] as? Bool) ?? (options?[NSPersistentStoreForceDestroyOption] as? NSNumber)?.boolValue ?? false
        do {
            try emptyDatabase(atPath: path, options: options)
        } catch SQLiteResultCode.notADatabase {
            try truncateFiles(atPath: path)
        } catch SQLiteResultCode.corrupt {
            try truncateFiles(atPath: path)
        } catch let error where forced && (SQLiteResultCode.busy ~= error || SQLiteResultCode.locked ~= error) {
            try truncateFiles(atPath: path)
        }
        // The last connection to close deletes a WAL database's -wal and -shm: companions that were there are kept
        // (empty; SQLite takes an empty -wal as no frames and rebuilds an -shm it may lock alone).
        let permissions = (try? fileManager.attributesOfItem(atPath: path)[.posixPermissions]) ?? nil
        for suffix in companions where !fileManager.fileExists(atPath: path + suffix) {
            _ = fileManager.createFile(atPath: path + suffix, contents: nil, attributes: permissions.map { [.posixPermissions: $0] })
        }
        try? fileManager.removeItem(at: ExternalBinaryStorage(storePath: path).directory.deletingLastPathComponent())
    }

    /// Drops every table, view and trigger of the database at `path` in one exclusive transaction, then shrinks it.
    private static func emptyDatabase(atPath path: String, options: [AnyHashable: Any]?) throws {
        let connection = try SQLiteConnection(path: path, configuration: connectionConfiguration(options: options, mode: .readWrite))
        defer { connection.close() }
        // Reading the header proves the file is a database; the journal mode is the one the store's options give
        // (Apple: pass the options the store is added with — switching journal modes under other connections blocks).
        try connection.applyStoreDefaults()
        try connection.inTransaction(.exclusive) {
            let objects = try connection.fetchAll(
                "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view', 'table') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
            // Triggers and views first: dropping a table drops its indexes and triggers, not the views over it.
            let order = ["trigger": 0, "view": 1, "table": 2]
            for row in objects.sorted(by: { order[$0[0].text ?? ""] ?? 3 < order[$1[0].text ?? ""] ?? 3 }) {
                guard let type = row[0].text, let name = row[1].text else { continue }
                try connection.execute("DROP \(type.uppercased()) IF EXISTS \(quoted(name))")
            }
            for statistics in ["sqlite_stat1", "sqlite_stat4"] { try connection.execute("DROP TABLE IF EXISTS \(statistics)") }
            try connection.execute("PRAGMA user_version = 0")
        }
        // The database is empty now; shrinking the file and the WAL is best effort (readers of other connections
        // may keep the WAL from being truncated — briefly: a pinned query generation would hold it for good).
        sqlite3_busy_timeout(connection.handle, 100)
        try? connection.vacuum()
        _ = try? connection.walCheckpoint(mode: .truncate)
    }

    /// Truncates the database file and its -wal to zero bytes and zeroes the -shm's header (so connections that map
    /// it rebuild their index from the files): a zero-byte file is an empty SQLite database.
    private static func truncateFiles(atPath path: String) throws {
        for (suffix, length) in [("", 0), ("-wal", 0), ("-journal", 0)] where FileManager.default.fileExists(atPath: path + suffix) {
            guard truncate(path + suffix, off_t(length)) == 0 else {
                let code = errno
                throw CoreDataError.make(NSPersistentStoreOperationError, "Can't truncate \(path + suffix): \(String(cString: strerror(code)))",
                                         userInfo: [NSFilePathErrorKey: path + suffix, NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code))])
            }
        }
        if let shm = FileHandle(forWritingAtPath: path + "-shm") {
            defer { try? shm.close() }
            try? shm.write(contentsOf: Data(count: 136))   // the two copies of the WAL-index header and the checkpoint info
        }
    }

    // MARK: Replacing

    /// Replaces the contents of the store at `destination` with those of the store at `source`, in place, with
    /// SQLite's backup API: one transaction on the destination (which is created if missing, in the journal mode its
    /// options give), so its `-wal`/`-shm` stay consistent and other connections to it see the whole copy or none of
    /// it. The source is read through a read-only connection (its WAL included) and left as it was. The destination's
    /// external binary data becomes a copy of the source's. `/dev/null` (an in-memory database) cannot be replaced.
    ///
    /// ```swift
    /// try SQLiteStore.replaceFiles(at: storeURL, destinationOptions: nil, withStoreAt: backupURL, sourceOptions: nil)
    /// ```
    static func replaceFiles(at destination: URL, destinationOptions: [AnyHashable: Any]?, withStoreAt source: URL,
                             sourceOptions: [AnyHashable: Any]?) throws {
        guard destination.isFileURL, source.isFileURL, destination.path != inMemoryPath, source.path != inMemoryPath else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "An SQLite store can only be replaced by, and with, a store file (\(source.absoluteString) → \(destination.absoluteString))")
        }
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "No store at \(source.path)", userInfo: [NSFilePathErrorKey: source.path])
        }
        // Replacing a store with itself leaves it as it is.
        guard source.standardizedFileURL.resolvingSymlinksInPath() != destination.standardizedFileURL.resolvingSymlinksInPath() else { return }
        do {
            var sourceConfiguration = try connectionConfiguration(options: sourceOptions, mode: .readOnly)
            sourceConfiguration.pragmas = [:]
            let sourceConnection = try SQLiteConnection(path: source.path, configuration: sourceConfiguration)
            defer { sourceConnection.close() }
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            let destinationConnection = try SQLiteConnection(path: destination.path, configuration: connectionConfiguration(options: destinationOptions, mode: .readWriteCreate))
            defer { destinationConnection.close() }
            try destinationConnection.applyStoreDefaults()
            try destinationConnection.replaceContents(with: sourceConnection)
            try ExternalBinaryStorage.mirrorFiles(fromStoreAt: source.path, toStoreAt: destination.path)
        } catch let error as NSError where error.code != NSPersistentStoreOperationError {
            throw CoreDataError.make(NSPersistentStoreOperationError, "Can't replace the store at \(destination.path): \(error.localizedDescription)",
                                     userInfo: [NSUnderlyingErrorKey: error, NSFilePathErrorKey: destination.path])
        }
    }
}

private extension SQLiteValue {
    /// The text of a text value.
    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}
