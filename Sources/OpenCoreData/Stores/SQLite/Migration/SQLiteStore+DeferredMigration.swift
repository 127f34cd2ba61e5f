/// Store option and store-metadata key of deferred lightweight migration (iOS 14+).
///
/// As an option of `addPersistentStore`, `true` lets a lightweight migration of an SQLite store leave its cleanup for
/// later: the store opens as soon as the required work is done (tables, rows, relationships, uniqueness constraints,
/// metadata) and the rest — building the new model's other indexes, dropping the old model's tables — waits for
/// `finishDeferredLightweightMigration()` / `finishDeferredLightweightMigrationTask()`, or for the store to be added
/// again without the option. As a metadata key, `true` says such work is pending.
///
/// For example:
/// ```swift
/// let options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true,
///                                    NSInferMappingModelAutomaticallyOption: true,
///                                    NSPersistentStoreDeferredLightweightMigrationOptionKey: true]
/// let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
/// if coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true {
///     try coordinator.finishDeferredLightweightMigration()   // later, when the app is idle
/// }
/// ```
public let NSPersistentStoreDeferredLightweightMigrationOptionKey = "NSPersistentStoreDeferredLightweightMigrationOptionKey"

extension SQLiteStore: DeferredMigrationStore {
    /// The tables a deferred lightweight migration left to drop (the source model's, renamed out of the way).
    static func leftoverMigrationTables(on connection: SQLiteConnection) throws -> [String] {
        try connection.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ? ORDER BY name",
                                arguments: [.integer(Int64(SQLiteLightweightMigration.oldTablePrefix.count)), .text(SQLiteLightweightMigration.oldTablePrefix)])
            .compactMap { row -> String? in
                if case .text(let name) = row[0] { return name }
                return nil
            }
    }

    /// Whether the store's metadata says deferred migration work is pending.
    var hasPendingDeferredMigrationWork: Bool {
        Self.flag(metadata?[NSPersistentStoreDeferredLightweightMigrationOptionKey])
    }

    /// The pending work, one SQL statement a task: the old model's tables to drop, then the model's indexes that are
    /// not in the file yet. Empty when the metadata says nothing is pending.
    func pendingDeferredMigrationTasks() throws -> [String] {
        guard hasPendingDeferredMigrationWork, let connection, let schema else { return [] }
        var tasks = try Self.leftoverMigrationTables(on: connection).map { "DROP TABLE IF EXISTS \(Self.quoted($0))" }
        let existing = Set(try connection.fetchAll("SELECT name FROM sqlite_master WHERE type = 'index'").compactMap { row -> String? in
            if case .text(let name) = row[0] { return name }
            return nil
        })
        for statement in schema.indexStatements() {
            // "CREATE [UNIQUE] INDEX IF NOT EXISTS <name> ON …"
            let words = statement.split(separator: " ")
            guard let on = words.firstIndex(of: "ON"), on > 0, !existing.contains(String(words[on - 1])) else { continue }
            tasks.append(statement)
        }
        return tasks
    }

    /// Does one unit of the pending work (and, with the last, clears the metadata's pending flag) in one transaction.
    /// Returns false when there was nothing to do.
    @discardableResult
    func finishDeferredMigrationTask() throws -> Bool {
        guard hasPendingDeferredMigrationWork else { return false }
        guard !isReadOnly, let connection, !connection.isReadOnly else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The read-only store at \(path) cannot finish its deferred migration",
                                     userInfo: [NSFilePathErrorKey: path])
        }
        try connection.inTransaction(.immediate) {
            let tasks = try pendingDeferredMigrationTasks()
            if let first = tasks.first { try connection.execute(first) }
            if tasks.count <= 1 {
                var stored = try readMetadata()
                stored[NSPersistentStoreDeferredLightweightMigrationOptionKey] = nil
                try writeMetadataRow(stored, uuid: stored[NSStoreUUIDKey] as? String ?? identifier ?? "", insert: false)
            }
        }
        if try pendingDeferredMigrationTasks().isEmpty {
            // The in-memory metadata loses the flag too, without marking metadata set since the last save as written.
            let needsWriting = metadataNeedsWriting
            var current = metadata ?? [:]
            current[NSPersistentStoreDeferredLightweightMigrationOptionKey] = nil
            metadata = current
            metadataNeedsWriting = needsWriting
        }
        return true
    }

    /// Does all the pending work.
    func finishDeferredMigration() throws {
        while try finishDeferredMigrationTask() {}
    }
}
