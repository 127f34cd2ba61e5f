import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// Statements bind and read `SQLiteValue`s; SQL functions receive and return them.
///
/// For example:
///
/// ```swift
/// let statement = try connection.prepare("INSERT INTO ZITEM (ZNAME, ZSIZE) VALUES (?, ?)")
/// try statement.bind(.text("Ben"), at: 1)
/// try statement.bind(.integer(42), at: 2)
/// _ = try statement.step()
/// ```
///
/// SQLite turns a NaN `real` into NULL when it is bound; every other value round-trips exactly
/// (text and blobs byte for byte, including NUL bytes).
enum SQLiteValue: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob(Data)

    /// The storage class of this value.
    ///
    /// ```swift
    /// SQLiteValue.text("x").storageClass   // .text
    /// ```
    var storageClass: SQLiteStorageClass {
        switch self {
        case .null: .null
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }

    /// Whether this is SQL NULL.
    ///
    /// ```swift
    /// SQLiteValue.null.isNull   // true
    /// ```
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension SQLiteValue: CustomStringConvertible {
    /// The value as an SQL literal, for logs (text quoted, blobs as `X'…'`, long values shortened).
    ///
    /// ```swift
    /// SQLiteValue.text("it's").description   // "'it''s'"
    /// SQLiteValue.blob(Data([1, 255])).description   // "X'01FF'"
    /// ```
    var description: String {
        switch self {
        case .null:
            return "NULL"
        case .integer(let value):
            return String(value)
        case .real(let value):
            return String(value)
        case .text(let value):
            let limit = 500
            let shown = value.count > limit ? String(value.prefix(limit)) : value
            let quoted = "'" + shown.replacingOccurrences(of: "'", with: "''") + "'"
            return value.count > limit ? quoted + "… (\(value.utf8.count) bytes)" : quoted
        case .blob(let data):
            let limit = 64
            let hex = data.prefix(limit).map { byte in
                let digits = String(byte, radix: 16, uppercase: true)
                return byte < 16 ? "0" + digits : digits
            }.joined()
            return data.count > limit ? "X'\(hex)…' (\(data.count) bytes)" : "X'\(hex)'"
        }
    }
}

/// SQLite's five storage classes: the type of a column value in one row (`sqlite3_column_type`).
///
/// ```swift
/// if statement.columnType(at: 0) == .real { … }
/// ```
enum SQLiteStorageClass: Int32, Hashable, Sendable {
    /// `SQLITE_INTEGER`.
    case integer = 1
    /// `SQLITE_FLOAT`.
    case real = 2
    /// `SQLITE_TEXT`.
    case text = 3
    /// `SQLITE_BLOB`.
    case blob = 4
    /// `SQLITE_NULL`.
    case null = 5
}
