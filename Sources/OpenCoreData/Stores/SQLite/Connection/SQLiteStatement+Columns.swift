import CSQLite
import Foundation

/// Reading the current row. Column indexes are 0-based. Call these only after ``SQLiteStatement/step()`` returned
/// true; the typed accessors apply SQLite's conversions (`int64(at:)` of NULL is 0, of `'12'` is 12).
///
/// ```swift
/// let statement = try connection.prepare("SELECT Z_PK, ZNAME, ZPHOTO FROM ZITEM")
/// while try statement.step() {
///     let pk = statement.int64(at: 0)
///     let name = statement.string(at: 1)     // nil for NULL
///     let photo = statement.data(at: 2)      // nil for NULL
/// }
/// ```
extension SQLiteStatement {
    /// The number of columns in the result (0 for statements that return no rows).
    ///
    /// ```swift
    /// try connection.prepare("SELECT 1, 2").columnCount   // 2
    /// ```
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of a result column: its `AS` alias, else SQLite's choice (usually the column name).
    ///
    /// ```swift
    /// try connection.prepare("SELECT ZNAME AS name FROM ZITEM").columnName(at: 0)   // "name"
    /// ```
    func columnName(at index: Int32) -> String {
        guard let name = sqlite3_column_name(handle, index) else { return "" }
        return String(cString: name)
    }

    /// The storage class of a column in the current row.
    ///
    /// ```swift
    /// statement.columnType(at: 0)   // .integer
    /// ```
    func columnType(at index: Int32) -> SQLiteStorageClass {
        SQLiteStorageClass(rawValue: sqlite3_column_type(handle, index)) ?? .null
    }

    /// Whether a column of the current row is NULL.
    ///
    /// ```swift
    /// if statement.isNull(at: 2) { … }
    /// ```
    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// A column as a 64-bit integer (0 for NULL).
    ///
    /// ```swift
    /// let pk = statement.int64(at: 0)
    /// ```
    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// A column as a double (0 for NULL).
    ///
    /// ```swift
    /// let timestamp = statement.double(at: 3)
    /// ```
    func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// A column as text, read with its byte length (`sqlite3_column_bytes`) so embedded NUL bytes are kept;
    /// nil for NULL. Invalid UTF-8 is repaired with U+FFFD.
    ///
    /// ```swift
    /// let name = statement.string(at: 1) ?? ""
    /// ```
    func string(at index: Int32) -> String? {
        guard sqlite3_column_type(handle, index) != SQLITE_NULL,
              let text = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// A column as bytes; nil for NULL, empty `Data` for a zero-length blob.
    ///
    /// ```swift
    /// let photo = statement.data(at: 2)
    /// ```
    func data(at index: Int32) -> Data? {
        guard sqlite3_column_type(handle, index) != SQLITE_NULL else { return nil }
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// A column as the value SQLite holds, in its own storage class.
    ///
    /// ```swift
    /// switch statement.value(at: 0) {
    /// case .integer(let pk): …
    /// default: …
    /// }
    /// ```
    func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: .text(string(at: index) ?? "")
        case SQLITE_BLOB: .blob(data(at: index) ?? Data())
        default: .null
        }
    }

    /// All columns of the current row.
    ///
    /// ```swift
    /// while try statement.step() { rows.append(statement.row) }
    /// ```
    var row: [SQLiteValue] {
        (0..<columnCount).map { value(at: $0) }
    }
}
