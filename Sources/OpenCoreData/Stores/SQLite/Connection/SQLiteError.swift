import CSQLite
import Foundation

/// The extra `userInfo` keys of the connection layer's errors.
///
/// Every error is an `NSError` in `NSCocoaErrorDomain` with code `NSSQLiteError` (134180), as Apple's store
/// reports SQLite failures. Besides these keys, `userInfo` holds `NSSQLiteErrorDomain` (the extended result
/// code, an `NSNumber`), `NSLocalizedDescriptionKey` (`"<message> (code N) while <operation>: <sql>"`), and for
/// the codes that have one a `NSLocalizedRecoverySuggestionErrorKey`; errors while opening add `NSFilePathErrorKey`.
///
/// ```swift
/// catch let error as NSError {
///     error.userInfo[SQLiteErrorKey.message] as? String   // "UNIQUE constraint failed: ZITEM.ZNAME"
///     error.userInfo[SQLiteErrorKey.sql] as? String       // "INSERT INTO ZITEM …"
/// }
/// ```
enum SQLiteErrorKey {
    /// SQLite's own message (`sqlite3_errmsg`), e.g. `"UNIQUE constraint failed: ZITEM.ZNAME"` (`String`).
    static let message = "OpenCoreDataSQLiteMessage"
    /// The SQL that failed, when there is one (`String`).
    static let sql = "OpenCoreDataSQLiteStatement"
    /// What the connection was doing: `"executing"`, `"preparing"`, `"opening"`, … (`String`).
    static let operation = "OpenCoreDataSQLiteOperation"
}

/// Builds the connection layer's `NSError`s (see ``SQLiteErrorKey``).
///
/// Every SQLite failure, `SQLITE_BUSY` and `SQLITE_LOCKED` included, is `NSSQLiteError` (134180) with the code under
/// `NSSQLiteErrorDomain`, which is what Apple's store reports for a locked database (`NSSQLiteErrorDomain = 5` in
/// field reports). `NSPersistentStoreTimeoutError` (134090) is documented for failing to *connect* to a store
/// within `NSPersistentStoreTimeoutOption`; that is the store's decision when opening, not this layer's.
///
/// ```swift
/// throw SQLiteError.make(code: .error, message: "invalid pragma name", operation: "applying pragmas")
/// ```
enum SQLiteError {
    /// The error for a non-OK result `code` with SQLite's `message`, raised while doing `operation` on `sql`.
    ///
    /// ```swift
    /// SQLiteError.make(code: .busy, message: "database is locked", operation: "executing", sql: "BEGIN IMMEDIATE")
    ///     .localizedDescription   // "database is locked (code 5) while executing: BEGIN IMMEDIATE"
    /// ```
    static func make(
        code: SQLiteResultCode,
        message: String,
        operation: String,
        sql: String? = nil,
        path: String? = nil,
        detail: String? = nil
    ) -> NSError {
        var description = "\(message) (code \(code.rawValue)) while \(operation)"
        if let sql { description += ": \(sql)" } else if let path { description += ": \(path)" }
        var userInfo: [String: Any] = [
            NSSQLiteErrorDomain: NSNumber(value: code.rawValue),
            SQLiteErrorKey.message: message,
            SQLiteErrorKey.operation: operation,
        ]
        if let sql { userInfo[SQLiteErrorKey.sql] = sql }
        if let path { userInfo[NSFilePathErrorKey] = path }
        let suggestion = [detail, recoverySuggestion(for: code)].compactMap { $0 }.joined(separator: " ")
        if !suggestion.isEmpty { userInfo[NSLocalizedRecoverySuggestionErrorKey] = suggestion }
        return CoreDataError.make(NSSQLiteError, description, userInfo: userInfo)
    }

    /// The error for a failure reported by the connection `db` (its `sqlite3_errmsg`), or by SQLite's generic
    /// text for `code` when there is no connection.
    ///
    /// ```swift
    /// let rc = sqlite3_step(handle)
    /// if rc != SQLITE_DONE { throw SQLiteError.make(code: rc, db: db, operation: "executing", sql: sql) }
    /// ```
    static func make(code: Int32, db: OpaquePointer?, operation: String, sql: String? = nil, path: String? = nil) -> NSError {
        var resultCode = SQLiteResultCode(rawValue: code)
        var message = String(cString: sqlite3_errstr(code))
        if let db {
            // The connection's own error is more precise ("UNIQUE constraint failed: …") and extended.
            let extended = sqlite3_extended_errcode(db)
            if extended & 0xFF == code & 0xFF {
                resultCode = SQLiteResultCode(rawValue: extended)
                message = String(cString: sqlite3_errmsg(db))
            }
        }
        return make(code: resultCode, message: message, operation: operation, sql: sql, path: path)
    }

    /// A plain-language explanation and remedy for the codes a user can meet in the field (full disks, locked,
    /// read-only, damaged or foreign files).
    ///
    /// ```swift
    /// SQLiteError.recoverySuggestion(for: .notADatabase)   // "The file is not an SQLite database …"
    /// ```
    static func recoverySuggestion(for code: SQLiteResultCode) -> String? {
        switch code.primary {
        case .busy:
            "Another connection or process holds a lock on the database and the busy timeout expired; retry later."
        case .locked:
            "The database is locked by another statement or transaction of the same connection."
        case .full:
            "The disk is full (or the database reached its maximum size); free space and retry. The store is unchanged."
        case .ioError:
            "The operating system reported an I/O error reading or writing the store or its -wal/-shm files."
        case .readonly:
            "The store, its -wal/-shm files or its directory cannot be written, or the store was opened read-only."
        case .corrupt:
            "The store file is damaged (malformed or truncated). Restore it from a backup."
        case .notADatabase:
            "The file is not an SQLite database (it may be encrypted, truncated to less than a header, or another format)."
        case .cantOpen:
            "The file or its -wal/-shm companions cannot be opened; check that it exists and that its directory is accessible."
        case .constraint:
            "A constraint of the store's schema was violated."
        default:
            nil
        }
    }
}
