import CSQLite
import Foundation

/// An SQLite result code, primary (`SQLITE_CONSTRAINT`, 19) or extended (`SQLITE_CONSTRAINT_UNIQUE`, 2067).
///
/// Every error the connection layer throws is an `NSError` (domain `NSCocoaErrorDomain`, code `NSSQLiteError`)
/// whose `userInfo[NSSQLiteErrorDomain]` is the extended result code. A primary code used as a pattern matches
/// all of its extended codes, so a `catch` can test a whole family or one precise code:
///
/// ```swift
/// do {
///     try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('duplicate')")
/// } catch SQLiteResultCode.constraintUnique {
///     // a uniqueness violation: the store reports a constraint conflict
/// } catch SQLiteResultCode.busy {
///     // SQLITE_BUSY, SQLITE_BUSY_RECOVERY, SQLITE_BUSY_SNAPSHOT, …
/// }
/// ```
///
/// See <https://www.sqlite.org/rescode.html>.
struct SQLiteResultCode: RawRepresentable, Hashable, Sendable {
    /// The numeric code (`sqlite3_extended_errcode`).
    let rawValue: Int32

    /// A code from its numeric value.
    ///
    /// ```swift
    /// SQLiteResultCode(rawValue: 2067) == .constraintUnique   // true
    /// ```
    init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code: the low 8 bits (`SQLITE_CONSTRAINT` for `SQLITE_CONSTRAINT_UNIQUE`).
    ///
    /// ```swift
    /// SQLiteResultCode.constraintUnique.primary == .constraint   // true
    /// ```
    var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

    /// Whether this is a primary code (no extended bits).
    ///
    /// ```swift
    /// SQLiteResultCode.busy.isPrimary   // true
    /// ```
    var isPrimary: Bool { rawValue == rawValue & 0xFF }

    /// The result code of an error thrown by the connection layer, or nil for any other error.
    ///
    /// ```swift
    /// catch {
    ///     if SQLiteResultCode(error: error)?.primary == .readonly { … }
    /// }
    /// ```
    init?(error: any Error) {
        let error = error as NSError
        guard error.domain == NSCocoaErrorDomain, error.code == NSSQLiteError,
              let number = error.userInfo[NSSQLiteErrorDomain] as? NSNumber else { return nil }
        self.init(rawValue: number.int32Value)
    }

    /// Matches a code against a pattern: a primary pattern matches its whole family, an extended one only itself.
    ///
    /// ```swift
    /// switch code {
    /// case .constraintUnique: …   // exactly SQLITE_CONSTRAINT_UNIQUE
    /// case .constraint: …         // any other SQLITE_CONSTRAINT_*
    /// default: …
    /// }
    /// ```
    static func ~= (pattern: SQLiteResultCode, code: SQLiteResultCode) -> Bool {
        pattern.isPrimary ? pattern == code.primary : pattern == code
    }

    /// Matches an error thrown by the connection layer against a code pattern (see the type's documentation).
    ///
    /// ```swift
    /// catch SQLiteResultCode.notADatabase { … }
    /// ```
    static func ~= (pattern: SQLiteResultCode, error: any Error) -> Bool {
        guard let code = SQLiteResultCode(error: error) else { return false }
        return pattern ~= code
    }
}

extension SQLiteResultCode: CustomStringConvertible {
    /// SQLite's English text for the code plus the number, e.g. `"database is locked (5)"`.
    ///
    /// ```swift
    /// SQLiteResultCode.busy.description   // "database is locked (5)"
    /// ```
    var description: String {
        "\(String(cString: sqlite3_errstr(rawValue))) (\(rawValue))"
    }
}

// MARK: - Codes

extension SQLiteResultCode {
    /// `SQLITE_OK`: success.
    static let ok = SQLiteResultCode(rawValue: SQLITE_OK)
    /// `SQLITE_ERROR`: generic error (syntax errors, missing tables, missing functions, …).
    static let error = SQLiteResultCode(rawValue: SQLITE_ERROR)
    /// `SQLITE_INTERNAL`.
    static let `internal` = SQLiteResultCode(rawValue: SQLITE_INTERNAL)
    /// `SQLITE_PERM`: access permission denied.
    static let permission = SQLiteResultCode(rawValue: SQLITE_PERM)
    /// `SQLITE_ABORT`: the operation was aborted.
    static let abort = SQLiteResultCode(rawValue: SQLITE_ABORT)
    /// `SQLITE_BUSY`: another connection holds a conflicting lock and the busy timeout expired.
    static let busy = SQLiteResultCode(rawValue: SQLITE_BUSY)
    /// `SQLITE_LOCKED`: a conflict inside the same connection (or shared cache).
    static let locked = SQLiteResultCode(rawValue: SQLITE_LOCKED)
    /// `SQLITE_NOMEM`: out of memory.
    static let noMemory = SQLiteResultCode(rawValue: SQLITE_NOMEM)
    /// `SQLITE_READONLY`: an attempt to write a read-only database.
    static let readonly = SQLiteResultCode(rawValue: SQLITE_READONLY)
    /// `SQLITE_INTERRUPT`: `sqlite3_interrupt` was called.
    static let interrupt = SQLiteResultCode(rawValue: SQLITE_INTERRUPT)
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    static let ioError = SQLiteResultCode(rawValue: SQLITE_IOERR)
    /// `SQLITE_CORRUPT`: the database file is malformed.
    static let corrupt = SQLiteResultCode(rawValue: SQLITE_CORRUPT)
    /// `SQLITE_NOTFOUND`.
    static let notFound = SQLiteResultCode(rawValue: SQLITE_NOTFOUND)
    /// `SQLITE_FULL`: the disk (or the database's maximum size) is full.
    static let full = SQLiteResultCode(rawValue: SQLITE_FULL)
    /// `SQLITE_CANTOPEN`: the file (or its -wal/-shm) cannot be opened.
    static let cantOpen = SQLiteResultCode(rawValue: SQLITE_CANTOPEN)
    /// `SQLITE_PROTOCOL`: a locking protocol error.
    static let `protocol` = SQLiteResultCode(rawValue: SQLITE_PROTOCOL)
    /// `SQLITE_SCHEMA`: the schema changed.
    static let schema = SQLiteResultCode(rawValue: SQLITE_SCHEMA)
    /// `SQLITE_TOOBIG`: a string or blob exceeds SQLite's limit.
    static let tooBig = SQLiteResultCode(rawValue: SQLITE_TOOBIG)
    /// `SQLITE_CONSTRAINT`: a constraint was violated.
    static let constraint = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT)
    /// `SQLITE_MISMATCH`: a datatype mismatch.
    static let mismatch = SQLiteResultCode(rawValue: SQLITE_MISMATCH)
    /// `SQLITE_MISUSE`: the library was used incorrectly.
    static let misuse = SQLiteResultCode(rawValue: SQLITE_MISUSE)
    /// `SQLITE_RANGE`: a bind index is out of range.
    static let range = SQLiteResultCode(rawValue: SQLITE_RANGE)
    /// `SQLITE_NOTADB`: the file is not an SQLite database.
    static let notADatabase = SQLiteResultCode(rawValue: SQLITE_NOTADB)
    /// `SQLITE_ROW`: a row is available.
    static let row = SQLiteResultCode(rawValue: SQLITE_ROW)
    /// `SQLITE_DONE`: the statement has finished.
    static let done = SQLiteResultCode(rawValue: SQLITE_DONE)

    /// `SQLITE_CONSTRAINT_UNIQUE`: a UNIQUE constraint (or unique index) was violated.
    static let constraintUnique = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
    static let constraintPrimaryKey = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (6 << 8))
    /// `SQLITE_CONSTRAINT_NOTNULL`.
    static let constraintNotNull = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (5 << 8))
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
    static let constraintForeignKey = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (3 << 8))
    /// `SQLITE_CONSTRAINT_CHECK`.
    static let constraintCheck = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (1 << 8))
    /// `SQLITE_BUSY_RECOVERY`: another process is recovering a WAL.
    static let busyRecovery = SQLiteResultCode(rawValue: SQLITE_BUSY | (1 << 8))
    /// `SQLITE_BUSY_SNAPSHOT`: a read transaction cannot be upgraded because the database changed.
    static let busySnapshot = SQLiteResultCode(rawValue: SQLITE_BUSY | (2 << 8))
    /// `SQLITE_READONLY_RECOVERY`: a read-only connection cannot recover a WAL.
    static let readonlyRecovery = SQLiteResultCode(rawValue: SQLITE_READONLY | (1 << 8))
    /// `SQLITE_READONLY_CANTLOCK`: a read-only connection cannot lock the -shm file.
    static let readonlyCantLock = SQLiteResultCode(rawValue: SQLITE_READONLY | (2 << 8))
    /// `SQLITE_READONLY_ROLLBACK`: a hot journal needs a rollback that a read-only connection cannot do.
    static let readonlyRollback = SQLiteResultCode(rawValue: SQLITE_READONLY | (3 << 8))
    /// `SQLITE_READONLY_DBMOVED`: the database file was moved or deleted while open.
    static let readonlyDatabaseMoved = SQLiteResultCode(rawValue: SQLITE_READONLY | (4 << 8))
    /// `SQLITE_READONLY_CANTINIT`: the -shm file is read-only and needs initialising.
    static let readonlyCantInit = SQLiteResultCode(rawValue: SQLITE_READONLY | (5 << 8))
    /// `SQLITE_READONLY_DIRECTORY`: the directory holding the database is read-only.
    static let readonlyDirectory = SQLiteResultCode(rawValue: SQLITE_READONLY | (6 << 8))
}
