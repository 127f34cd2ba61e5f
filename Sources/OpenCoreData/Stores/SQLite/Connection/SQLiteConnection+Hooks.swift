import CSQLite
import Foundation
import Logging

/// The single will/did/fail path every execution goes through: SQL debug logging, timing and error building
/// live here and nowhere else.
///
/// With SQL debugging at level 1, running `SELECT ZTITLE FROM ZBOOK` logs (label `OpenCoreData.SQL`):
///
/// ```
/// sql: SELECT ZTITLE FROM ZBOOK
/// annotation: sql execution time: 0.0001s, 2 rows
/// ```
///
/// Level 2 adds one `details: SQLite bind[i] = value` line per bound parameter (0-based, as Apple's log), level 3
/// adds `details: EXPLAIN QUERY PLAN …` for SELECTs. Failures log `error: <description>` at level 1 and above.
extension SQLiteConnection {
    /// Called by a statement when it starts running (its first step after a reset).
    ///
    /// ```swift
    /// connection.statementWillExecute(statement)   // logs "sql: …" under SQL debugging
    /// ```
    func statementWillExecute(_ statement: SQLiteStatement) {
        let level = sqlDebugLevel
        guard level > 0 else { return }
        logger.debug("sql: \(statement.sql)")
        if level >= 2 {
            for (index, value) in statement.boundValuesForLog.sorted(by: { $0.key < $1.key }) {
                logger.debug("details: SQLite bind[\(index - 1)] = \(value.description)")
            }
        }
        if level >= 3, Self.isSelect(statement.sql) {
            logQueryPlan(of: statement.sql)
        }
    }

    /// Called by a statement when it has finished (`SQLITE_DONE`, or reset before its last row).
    ///
    /// ```swift
    /// connection.statementDidExecute(statement)   // logs the execution time under SQL debugging
    /// ```
    func statementDidExecute(_ statement: SQLiteStatement) {
        guard sqlDebugLevel > 0 else { return }
        let rows = statement.rowCount == 1 ? "1 row" : "\(statement.rowCount) rows"
        logger.debug("annotation: sql execution time: \(Self.seconds(statement.executionNanoseconds)), \(rows)")
    }

    /// Called by a statement whose step failed; returns the error to throw.
    ///
    /// ```swift
    /// throw connection.statementDidFail(statement, code: code)
    /// ```
    func statementDidFail(_ statement: SQLiteStatement, code: Int32) -> NSError {
        reportFailure(code, operation: "executing", sql: statement.sql)
    }

    /// The error for a failed SQLite call on this connection (message from `sqlite3_errmsg`), logged under SQL
    /// debugging.
    ///
    /// ```swift
    /// throw connection.reportFailure(code, operation: "preparing", sql: sql)
    /// ```
    func reportFailure(_ code: Int32, operation: String, sql: String?) -> NSError {
        log(SQLiteError.make(code: code, db: handle, operation: operation, sql: sql))
    }

    /// The error for a failure the connection layer detects itself, logged under SQL debugging.
    ///
    /// ```swift
    /// throw connection.reportFailure(.misuse, message: "the SQL holds no statement", operation: "preparing", sql: sql)
    /// ```
    func reportFailure(_ code: SQLiteResultCode, message: String, operation: String, sql: String?) -> NSError {
        log(SQLiteError.make(code: code, message: message, operation: operation, sql: sql))
    }

    private func log(_ error: NSError) -> NSError {
        if sqlDebugLevel > 0 { logger.debug("error: \(error.localizedDescription)") }
        return error
    }

    /// Logs `EXPLAIN QUERY PLAN` for `sql`, prepared and stepped directly (outside the hooks, parameters unbound).
    private func logQueryPlan(of sql: String) {
        var plan: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "EXPLAIN QUERY PLAN " + sql, -1, &plan, nil) == SQLITE_OK, let plan else {
            logger.debug("details: EXPLAIN QUERY PLAN unavailable: \(String(cString: sqlite3_errmsg(handle)))")
            return
        }
        defer { sqlite3_finalize(plan) }
        var lines: [String] = []
        while sqlite3_step(plan) == SQLITE_ROW {
            let id = sqlite3_column_int64(plan, 0)
            let parent = sqlite3_column_int64(plan, 1)
            let detail = sqlite3_column_text(plan, 3).map { String(cString: $0) } ?? ""
            lines.append("\(id) \(parent) \(detail)")
        }
        logger.debug("details: EXPLAIN QUERY PLAN \(sql)\n\(lines.joined(separator: "\n"))")
    }

    /// Whether `sql` is a query (starts with SELECT, WITH or VALUES, after spaces and parentheses).
    ///
    /// ```swift
    /// SQLiteConnection.isSelect("  select 1")   // true
    /// ```
    static func isSelect(_ sql: String) -> Bool {
        let keyword = sql.drop(while: { $0.isWhitespace || $0 == "(" }).prefix(while: { $0.isLetter }).uppercased()
        return keyword == "SELECT" || keyword == "WITH" || keyword == "VALUES"
    }

    /// Nanoseconds as seconds with four decimals, e.g. `"0.0012s"`.
    ///
    /// ```swift
    /// SQLiteConnection.seconds(1_200_000)   // "0.0012s"
    /// ```
    static func seconds(_ nanoseconds: UInt64) -> String {
        let tenThousandths = (nanoseconds + 50_000) / 100_000
        let fraction = String(tenThousandths % 10_000)
        return "\(tenThousandths / 10_000).\(String(repeating: "0", count: 4 - fraction.count))\(fraction)s"
    }
}
