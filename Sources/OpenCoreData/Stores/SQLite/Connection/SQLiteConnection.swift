import CSQLite
import Foundation
import Logging

/// One SQLite database connection (`sqlite3*`): the lowest layer of the SQLite store.
///
/// Opening a read-write connection configures the file as Apple's store does (page size 4096 and incremental
/// auto-vacuum for a new file, WAL journal, `synchronous = NORMAL`, a busy timeout, foreign keys left off);
/// opening read-only changes nothing on disk. Statements are prepared with ``prepare(_:)`` or, for SQL that runs
/// again and again, taken from a per-connection cache with ``cachedStatement(_:)``:
///
/// ```swift
/// let connection = try SQLiteConnection(path: "/tmp/Library.sqlite")
/// try connection.execute("CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, ZTITLE VARCHAR)")
/// try connection.inTransaction(.immediate) {
///     let insert = try connection.cachedStatement("INSERT INTO ZBOOK (ZTITLE) VALUES (?)")
///     for title in ["Emma", "Persuasion"] {
///         try insert.bind(title, at: 1)
///         try insert.execute()
///     }
/// }
/// connection.lastInsertRowID   // 2
/// ```
///
/// ## Threading
/// The handle is opened with `SQLITE_OPEN_NOMUTEX`: SQLite does no locking of its own, so a connection (and its
/// statements) must be used from one queue at a time. The owner — the store — confines it to its serial queue;
/// the connection itself is not `Sendable` and does not check that confinement.
///
/// ## Errors
/// Every failure is thrown as an `NSError` in `NSCocoaErrorDomain` with code `NSSQLiteError` (134180) and the
/// extended SQLite result code under `NSSQLiteErrorDomain`; match it with ``SQLiteResultCode`` patterns.
final class SQLiteConnection {
    /// The open handle, nil once closed.
    private var rawHandle: OpaquePointer?

    /// The path the connection was opened with (`":memory:"` for an in-memory database).
    let path: String

    /// The configuration the connection was opened with.
    let configuration: Configuration

    /// Whether the connection is read-only.
    let isReadOnly: Bool

    /// Whether a read-only connection fell back to reading the main file as immutable (see ``init(path:configuration:)``).
    private(set) var isImmutable = false

    /// The SQL debug level of this connection (see ``SQLDebug``); tests set it to capture SQL.
    ///
    /// ```swift
    /// connection.sqlDebugLevel = 2   // log SQL, timings and bound values
    /// ```
    var sqlDebugLevel: Int {
        didSet { if sqlDebugLevel > 0, logger.logLevel > .debug { logger.logLevel = .debug } }
    }

    /// The logger SQL is logged to (label `"OpenCoreData.SQL"` unless the configuration gave another).
    var logger: Logger

    /// Prepared statements by SQL text (see ``cachedStatement(_:)``).
    private var statementCache = StatementCache()

    /// Depth of ``inSavepoint(_:)`` nesting, for unique savepoint names.
    var savepointDepth = 0

    /// Opens (and for read-write, configures) the database at `path`.
    ///
    /// ```swift
    /// let store = try SQLiteConnection(path: url.path)
    /// let reader = try SQLiteConnection(path: url.path, configuration: .init(mode: .readOnly))
    /// let scratch = try SQLiteConnection(path: ":memory:")
    /// ```
    ///
    /// A read-write open of a new (empty) file sets `page_size = 4096` and `auto_vacuum = INCREMENTAL` before
    /// anything is written; every read-write open sets `journal_mode = WAL` and `synchronous = NORMAL`.
    ///
    /// A read-only open writes nothing to the database file or its WAL: no journal-mode change, no checkpoint. A WAL
    /// store is read with its -wal and -shm files, which SQLite needs to exist or to be able to create (write access
    /// to the directory; SQLite then leaves an empty -wal and a -shm beside a store that had none). On read-only
    /// media a store with no -wal content but no -shm is opened as immutable (`?immutable=1`, ``isImmutable``), which
    /// is exact because all its data is in the main file; a store whose -wal holds data but has no -shm cannot be
    /// read there (reading only the main file would silently lose the data in the WAL), and the open fails with
    /// `SQLITE_CANTOPEN`: copy the store with its -wal and -shm to a writable directory.
    ///
    /// - Throws: an `NSSQLiteError` error: `SQLITE_CANTOPEN` for a missing file or directory, `SQLITE_NOTADB` for a
    ///   file that is not a database, `SQLITE_CORRUPT`, `SQLITE_BUSY` when another process holds a lock longer
    ///   than the busy timeout, ….
    init(path: String, configuration: Configuration = Configuration()) throws {
        let level = configuration.sqlDebugLevel ?? SQLDebug.processLevel
        var logger = configuration.logger ?? SQLDebug.makeLogger(level: level)
        if level > 0, logger.logLevel > .debug { logger.logLevel = .debug }
        let isReadOnly = configuration.mode == .readOnly
        if configuration.mode == .readWriteCreate, configuration.createsOwnerOnlyFiles, Self.isFilePath(path) {
            try Self.createOwnerOnlyFile(atPath: path)
        }
        var flags = SQLITE_OPEN_NOMUTEX
        switch configuration.mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        self.rawHandle = try Self.openHandle(path, flags: flags, busyTimeout: configuration.busyTimeout)
        self.path = path
        self.configuration = configuration
        self.isReadOnly = isReadOnly
        self.sqlDebugLevel = level
        self.logger = logger
        if isReadOnly {
            try openForReading()
            try applyReadOnlyPragmas()
        } else if configuration.appliesStoreDefaultsOnOpen {
            try applyStoreDefaults()
        }
    }

    deinit {
        close()
    }

    /// The `sqlite3*`. Using a closed connection is a programmer error and stops the program.
    var handle: OpaquePointer {
        guard let rawHandle else { preconditionFailure("SQLiteConnection used after close(): \(path)") }
        return rawHandle
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { rawHandle == nil }

    /// Closes the connection: finalizes the cached statements and closes the handle (an open transaction is rolled
    /// back). Statements still held elsewhere keep SQLite's connection alive until they are released
    /// (`sqlite3_close_v2`). Closing twice does nothing; `deinit` closes too.
    ///
    /// ```swift
    /// connection.close()
    /// ```
    func close() {
        guard let rawHandle else { return }
        statementCache.removeAll()
        sqlite3_close_v2(rawHandle)
        self.rawHandle = nil
    }

    /// Checks that a read-only connection can read its file, falling back to an immutable open on read-only media
    /// when that loses nothing (see ``init(path:configuration:)``).
    private func openForReading() throws {
        do {
            _ = try fetchValue("PRAGMA schema_version")
        } catch SQLiteResultCode.cantOpen where Self.isFilePath(path) && FileManager.default.fileExists(atPath: path)
            && !Self.walHoldsData(databasePath: path) {
            let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
            let immutable = try Self.openHandle(
                Self.immutableURI(forPath: path), flags: flags, busyTimeout: configuration.busyTimeout, reportedPath: path)
            statementCache.removeAll()
            if let rawHandle { sqlite3_close_v2(rawHandle) }
            rawHandle = immutable
            isImmutable = true
            _ = try fetchValue("PRAGMA schema_version")
            logger.notice("opened \(path) as immutable: its directory cannot hold the -shm file and its WAL is empty")
        }
    }

    // MARK: - Executing

    /// Runs a script of zero or more statements separated by semicolons, each through the execution hooks.
    ///
    /// ```swift
    /// try connection.execute("""
    ///     CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
    ///     CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
    ///     """)
    /// ```
    ///
    /// - Throws: the error of the first statement that fails; the statements before it have run.
    func execute(_ sql: String) throws {
        if sql.utf8.contains(0) {
            throw reportFailure(.misuse, message: "the SQL contains a NUL character", operation: "preparing", sql: sql)
        }
        let db = handle
        try sql.withCString { start in
            var cursor = start
            while cursor.pointee != 0 {
                var prepared: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(db, cursor, -1, &prepared, &tail)
                guard code == SQLITE_OK else {
                    throw reportFailure(code, operation: "preparing", sql: String(cString: cursor))
                }
                if let prepared {
                    let statement = SQLiteStatement(connection: self, handle: prepared)
                    while try statement.step() {}
                }
                // No statement: spaces, comments or a lone semicolon, skipped; stop when nothing was consumed.
                guard let tail, tail != cursor else { break }
                cursor = tail
            }
        }
    }

    /// Prepares one statement. Use ``cachedStatement(_:)`` for SQL that runs repeatedly.
    ///
    /// ```swift
    /// let statement = try connection.prepare("SELECT Z_PK FROM ZBOOK WHERE ZTITLE = ?")
    /// ```
    ///
    /// - Throws: an `NSSQLiteError` error for invalid SQL, or SQL that holds several statements.
    func prepare(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// The cached statement for `sql`, prepared on first use and reused afterwards; it comes back reset, with its
    /// bindings cleared.
    ///
    /// The cache holds one statement per distinct SQL text for the life of the connection, so cache only SQL from a
    /// bounded set (the store's own statements), never text with values spliced in. If the cached statement is
    /// still running (a caller is iterating its rows), a fresh uncached statement is returned instead of resetting it.
    ///
    /// ```swift
    /// let fetch = try connection.cachedStatement("SELECT ZTITLE FROM ZBOOK WHERE Z_PK = ?")
    /// try fetch.bind(Int64(1), at: 1)
    /// ```
    func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statementCache.statement(for: sql) {
            if statement.isExecuting || sqlite3_stmt_busy(statement.handle) != 0 {
                return try SQLiteStatement(connection: self, sql: sql)
            }
            statement.reset()
            statement.clearBindings()
            return statement
        }
        let statement = try SQLiteStatement(connection: self, sql: sql, persistent: true)
        statementCache.insert(statement, for: sql)
        return statement
    }

    /// The number of statements in the cache.
    ///
    /// ```swift
    /// connection.cachedStatementCount   // 0 right after opening
    /// ```
    var cachedStatementCount: Int { statementCache.count }

    /// Empties the statement cache (statements still held by callers stay valid).
    ///
    /// ```swift
    /// connection.clearStatementCache()
    /// ```
    func clearStatementCache() {
        statementCache.removeAll()
    }

    /// Runs a query and returns all its rows.
    ///
    /// ```swift
    /// let rows = try connection.fetchAll("SELECT Z_PK, ZTITLE FROM ZBOOK WHERE Z_PK > ?", arguments: [.integer(1)])
    /// ```
    func fetchAll(_ sql: String, arguments: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var rows: [[SQLiteValue]] = []
        while try statement.step() { rows.append(statement.row) }
        return rows
    }

    /// Runs a query and returns the first column of its first row, or nil when it returns no row.
    ///
    /// ```swift
    /// try connection.fetchValue("SELECT count(*) FROM ZBOOK")   // .integer(2)
    /// ```
    func fetchValue(_ sql: String, arguments: [SQLiteValue] = []) throws -> SQLiteValue? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? statement.value(at: 0) : nil
    }

    // MARK: - Counters

    /// The rowid of the most recent successful INSERT on this connection (`sqlite3_last_insert_rowid`).
    ///
    /// ```swift
    /// try connection.execute("INSERT INTO ZBOOK (ZTITLE) VALUES ('Emma')")
    /// connection.lastInsertRowID   // the new Z_PK
    /// ```
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE (`sqlite3_changes64`).
    ///
    /// ```swift
    /// try connection.execute("DELETE FROM ZBOOK")
    /// connection.changes   // rows deleted
    /// ```
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Rows changed since the connection opened (`sqlite3_total_changes64`).
    ///
    /// ```swift
    /// connection.totalChanges
    /// ```
    var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    /// Whether a transaction is open (SQLite is not in autocommit mode).
    ///
    /// ```swift
    /// try connection.beginTransaction()
    /// connection.isInTransaction   // true
    /// ```
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
}

@available(*, unavailable, message: "a connection is confined to its owner's serial queue (SQLITE_OPEN_NOMUTEX)")
extension SQLiteConnection: Sendable {}
