import Foundation

/// How a transaction takes its locks (`BEGIN DEFERRED | IMMEDIATE | EXCLUSIVE`).
///
/// ```swift
/// try connection.beginTransaction(.immediate)   // take the write lock now, not at the first write
/// ```
///
/// See <https://www.sqlite.org/lang_transaction.html>.
enum SQLiteTransactionKind: String, Sendable, Hashable {
    /// Locks are taken when first needed; a read transaction may fail to upgrade with `SQLITE_BUSY`.
    case deferred = "DEFERRED"
    /// The write lock is taken at once (waiting up to the busy timeout); the usual choice for a save.
    case immediate = "IMMEDIATE"
    /// As immediate; in rollback-journal mode also keeps readers out.
    case exclusive = "EXCLUSIVE"
}

/// Transactions and savepoints.
///
/// ```swift
/// try connection.inTransaction(.immediate) {
///     try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 1")
///     try connection.inSavepoint {
///         try connection.execute("INSERT INTO ZBOOK (ZTITLE) VALUES ('Emma')")
///     }
/// }
/// ```
extension SQLiteConnection {
    /// Begins a transaction.
    ///
    /// ```swift
    /// try connection.beginTransaction(.immediate)
    /// ```
    ///
    /// - Throws: `SQLITE_BUSY` when another connection holds the write lock past the busy timeout (immediate and
    ///   exclusive), `SQLITE_ERROR` when a transaction is already open.
    func beginTransaction(_ kind: SQLiteTransactionKind = .deferred) throws {
        try cachedStatement("BEGIN \(kind.rawValue) TRANSACTION").execute()
    }

    /// Commits the open transaction.
    ///
    /// ```swift
    /// try connection.commit()
    /// ```
    ///
    /// - Throws: `SQLITE_BUSY` (the transaction stays open and can be committed again or rolled back),
    ///   `SQLITE_FULL`, `SQLITE_IOERR`, ….
    func commit() throws {
        try cachedStatement("COMMIT TRANSACTION").execute()
    }

    /// Rolls back the open transaction.
    ///
    /// ```swift
    /// try connection.rollback()
    /// ```
    func rollback() throws {
        try cachedStatement("ROLLBACK TRANSACTION").execute()
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it (or the commit) throws, and
    /// rethrows that error. (This cannot be `rethrows`: beginning and committing can fail on their own.)
    ///
    /// ```swift
    /// let count = try connection.inTransaction(.immediate) {
    ///     try connection.execute("DELETE FROM ZBOOK WHERE ZTITLE IS NULL")
    ///     return connection.changes
    /// }
    /// ```
    func inTransaction<T>(_ kind: SQLiteTransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        try beginTransaction(kind)
        let result: T
        do {
            result = try body()
            try commit()
        } catch {
            // SQLite may already have rolled back (after SQLITE_FULL, SQLITE_IOERR, …); keep the original error.
            if isInTransaction { try? rollback() }
            throw error
        }
        return result
    }

    /// Opens a savepoint named `name` (starting a transaction if none is open).
    ///
    /// ```swift
    /// try connection.savepoint("import")
    /// ```
    ///
    /// - Throws: an `NSSQLiteError` error for a name that is not an identifier (letters, digits, `_`).
    func savepoint(_ name: String) throws {
        try execute("SAVEPOINT \(try Self.quotedIdentifier(name))")
    }

    /// Releases (commits into the enclosing transaction) the savepoint `name` and every savepoint opened after it.
    ///
    /// ```swift
    /// try connection.releaseSavepoint("import")
    /// ```
    func releaseSavepoint(_ name: String) throws {
        try execute("RELEASE SAVEPOINT \(try Self.quotedIdentifier(name))")
    }

    /// Undoes everything since the savepoint `name` was opened; the savepoint stays open.
    ///
    /// ```swift
    /// try connection.rollbackToSavepoint("import")
    /// ```
    func rollbackToSavepoint(_ name: String) throws {
        try execute("ROLLBACK TO SAVEPOINT \(try Self.quotedIdentifier(name))")
    }

    /// Runs `body` inside a savepoint: released when it returns, rolled back to (and released) when it throws.
    /// Savepoints nest; an outermost one starts and ends a transaction of its own.
    ///
    /// ```swift
    /// try connection.inTransaction {
    ///     try connection.execute("INSERT INTO ZBOOK (ZTITLE) VALUES ('kept')")
    ///     try? connection.inSavepoint {
    ///         try connection.execute("INSERT INTO ZBOOK (ZTITLE) VALUES ('undone')")
    ///         throw CancellationError()
    ///     }
    /// }
    /// ```
    func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        let name = "opencoredata_savepoint_\(savepointDepth)"
        try savepoint(name)
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let result: T
        do {
            result = try body()
        } catch {
            if isInTransaction {
                try? rollbackToSavepoint(name)
                try? releaseSavepoint(name)
            }
            throw error
        }
        try releaseSavepoint(name)
        return result
    }
}
