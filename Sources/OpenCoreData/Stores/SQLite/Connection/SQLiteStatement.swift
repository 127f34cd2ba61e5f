import CSQLite
import Foundation

/// One prepared SQLite statement (`sqlite3_stmt`): prepared in a throwing initializer, finalized in `deinit`.
///
/// Bind values by position (1-based, as in SQLite), step through the rows, read columns by index (0-based),
/// then `reset()` to run it again with new values:
///
/// ```swift
/// let insert = try connection.cachedStatement("INSERT INTO ZITEM (ZNAME, ZSIZE) VALUES (?, ?)")
/// for (name, size) in [("a", 1), ("b", 2)] {
///     try insert.bind(name, at: 1)
///     try insert.bind(Int64(size), at: 2)
///     try insert.execute()          // steps to the end, then resets
/// }
///
/// let select = try connection.prepare("SELECT ZNAME, ZSIZE FROM ZITEM ORDER BY ZSIZE")
/// while try select.step() {
///     print(select.string(at: 0) ?? "NULL", select.int64(at: 1))
/// }
/// ```
///
/// Every execution goes through the connection's will/did/fail hooks (``SQLiteConnection/statementWillExecute(_:)``),
/// which log it under SQL debugging, time it and turn failures into `NSSQLiteError` errors.
///
/// A statement belongs to its connection: it is not `Sendable`, is used on the connection's queue only, and must not
/// be used after the connection is closed (that stops the program). It may outlive the connection object; its
/// `deinit` then only finalizes the handle (SQLite keeps the closed connection alive until then).
final class SQLiteStatement {
    /// The `sqlite3_stmt*`.
    let handle: OpaquePointer

    /// The connection that prepared the statement.
    unowned let connection: SQLiteConnection

    /// The statement's SQL text, as prepared (`sqlite3_sql`), without any trailing text.
    let sql: String

    /// Whether the statement has started running and not yet finished or been reset.
    private(set) var isExecuting = false

    /// Whether this execution is timed for the SQL debug log (decided when it starts).
    private var isTimed = false

    /// Time spent inside `sqlite3_step` during the current execution, when timed.
    private(set) var executionNanoseconds: UInt64 = 0

    /// Rows produced by the current execution.
    private(set) var rowCount = 0

    /// The values bound since the last `clearBindings()`, recorded only at SQL debug level 2 and above.
    var boundValuesForLog: [Int32: SQLiteValue] = [:]

    /// Prepares exactly one SQL statement on `connection`.
    ///
    /// ```swift
    /// let statement = try SQLiteStatement(connection: connection, sql: "SELECT 1")
    /// ```
    ///
    /// - Parameters:
    ///   - persistent: a hint that the statement will be kept and reused (`SQLITE_PREPARE_PERSISTENT`).
    /// - Throws: an `NSSQLiteError` error for a syntax error, an unknown table or function, a NUL byte in `sql`,
    ///   SQL that holds no statement, or more than one statement (use ``SQLiteConnection/execute(_:)`` for scripts).
    init(connection: SQLiteConnection, sql: String, persistent: Bool = false) throws {
        if sql.utf8.contains(0) {
            throw connection.reportFailure(.misuse, message: "the SQL contains a NUL character", operation: "preparing", sql: sql)
        }
        let db = connection.handle
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        var statement: OpaquePointer?
        var remainder = ""
        let code = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(db, text, -1, flags, &statement, &tail)
            if code == SQLITE_OK, let tail, tail.pointee != 0 { remainder = String(cString: tail) }
            return code
        }
        guard code == SQLITE_OK else {
            throw connection.reportFailure(code, operation: "preparing", sql: sql)
        }
        guard let statement else {
            throw connection.reportFailure(.misuse, message: "the SQL holds no statement", operation: "preparing", sql: sql)
        }
        if Self.holdsStatement(remainder, db: db) {
            sqlite3_finalize(statement)
            throw connection.reportFailure(
                .misuse, message: "prepare accepts a single statement; use execute(_:) for scripts",
                operation: "preparing", sql: sql)
        }
        self.handle = statement
        self.connection = connection
        self.sql = String(cString: sqlite3_sql(statement))
    }

    /// Wraps a statement the connection prepared itself (one statement of a script).
    ///
    /// ```swift
    /// let statement = SQLiteStatement(connection: self, handle: preparedHandle)
    /// ```
    init(connection: SQLiteConnection, handle: OpaquePointer) {
        self.handle = handle
        self.connection = connection
        self.sql = String(cString: sqlite3_sql(handle))
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Whether `text` (the tail after a prepared statement) holds more SQL: another statement or unparsable text,
    /// as opposed to spaces, semicolons and comments.
    private static func holdsStatement(_ text: String, db: OpaquePointer) -> Bool {
        text.withCString { start in
            var cursor = start
            while cursor.pointee != 0 {
                var next: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                guard sqlite3_prepare_v2(db, cursor, -1, &next, &tail) == SQLITE_OK else { return true }
                if let next {
                    sqlite3_finalize(next)
                    return true
                }
                guard let tail, tail != cursor else { return false }
                cursor = tail  // an empty statement (a lone semicolon) was skipped
            }
            return false
        }
    }

    /// The SQL with the bound values substituted (`sqlite3_expanded_sql`), for diagnostics; nil if SQLite cannot
    /// build it (out of memory, or longer than `SQLITE_LIMIT_LENGTH`).
    ///
    /// ```swift
    /// try statement.bind(Int64(7), at: 1)
    /// statement.expandedSQL   // "SELECT * FROM ZITEM WHERE Z_PK = 7"
    /// ```
    var expandedSQL: String? {
        guard let text = sqlite3_expanded_sql(handle) else { return nil }
        defer { sqlite3_free(text) }
        return String(cString: text)
    }

    /// Whether the statement only reads (`sqlite3_stmt_readonly`): true for SELECT, false for INSERT, BEGIN, ….
    ///
    /// ```swift
    /// try connection.prepare("SELECT 1").isReadOnly   // true
    /// ```
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// Runs the statement one step.
    ///
    /// ```swift
    /// while try statement.step() { rows.append(statement.value(at: 0)) }
    /// ```
    ///
    /// - Returns: true when a row is available (read it with the column accessors), false when the statement has
    ///   finished; stepping again after false starts a new execution with the same bindings.
    /// - Throws: an `NSSQLiteError` error (constraint violations, busy, full disk, corruption, errors raised by SQL
    ///   functions, …). The statement must then be `reset()` before it is run again (the connection's caches do it).
    func step() throws -> Bool {
        let connection = self.connection
        if !isExecuting {
            isExecuting = true
            rowCount = 0
            executionNanoseconds = 0
            isTimed = connection.sqlDebugLevel > 0
            connection.statementWillExecute(self)
        }
        let start = isTimed ? DispatchTime.now().uptimeNanoseconds : 0
        let code = sqlite3_step(handle)
        if isTimed { executionNanoseconds &+= DispatchTime.now().uptimeNanoseconds &- start }
        switch code {
        case SQLITE_ROW:
            rowCount += 1
            return true
        case SQLITE_DONE:
            isExecuting = false
            connection.statementDidExecute(self)
            return false
        default:
            isExecuting = false
            throw connection.statementDidFail(self, code: code)
        }
    }

    /// Steps to the end, ignoring any rows, then resets the statement (bindings are kept).
    ///
    /// ```swift
    /// try connection.cachedStatement("DELETE FROM ZITEM WHERE Z_PK = ?").bind(Int64(3), at: 1)
    /// try statement.execute()
    /// ```
    ///
    /// - Throws: the error of the failing step (the statement is reset either way).
    func execute() throws {
        defer { reset() }
        while try step() {}
    }

    /// Resets the statement so it can run again; bindings are kept (`sqlite3_reset`).
    ///
    /// An execution abandoned before its last row is reported to the hooks as finished. `reset()` does not throw:
    /// the error of a failed step, which `sqlite3_reset` repeats, was already thrown by ``step()``.
    ///
    /// ```swift
    /// _ = try statement.step()   // read one row only
    /// statement.reset()
    /// ```
    func reset() {
        if isExecuting {
            isExecuting = false
            connection.statementDidExecute(self)
        }
        sqlite3_reset(handle)
    }

    /// Sets every parameter back to NULL (`sqlite3_clear_bindings`).
    ///
    /// ```swift
    /// statement.clearBindings()
    /// ```
    func clearBindings() {
        sqlite3_clear_bindings(handle)
        boundValuesForLog.removeAll()
    }
}

@available(*, unavailable, message: "a statement is confined to its connection's queue")
extension SQLiteStatement: Sendable {}
