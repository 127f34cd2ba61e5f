import CSQLite
import Foundation

/// The arguments of one call of an SQL function, read lazily from SQLite (`sqlite3_value**`).
///
/// Valid only during the call it is passed to: never store it. Reading one argument with a typed accessor costs no
/// allocation, which makes ``SQLiteConnection/registerRawFunction(name:argumentCount:deterministic:_:)`` cheaper
/// than the `[SQLiteValue]` form for functions called once per row.
///
/// ```swift
/// try connection.registerRawFunction(name: "ocd_len", argumentCount: 1, deterministic: true) { arguments in
///     guard let text = arguments.string(at: 0) else { return .null }
///     return .integer(Int64(text.count))
/// }
/// ```
struct SQLiteFunctionArguments: RandomAccessCollection {
    /// SQLite's argument array.
    private let values: UnsafeMutablePointer<OpaquePointer?>?

    /// The number of arguments.
    let count: Int

    /// Wraps the arguments SQLite passes to a function implementation.
    ///
    /// ```swift
    /// let arguments = SQLiteFunctionArguments(values: argv, count: Int(argc))
    /// ```
    init(values: UnsafeMutablePointer<OpaquePointer?>?, count: Int) {
        self.values = values
        self.count = count
    }

    /// 0.
    var startIndex: Int { 0 }

    /// ``count``.
    var endIndex: Int { count }

    /// The argument at `index` as a value in its storage class.
    ///
    /// ```swift
    /// let all = Array(arguments)   // [SQLiteValue]
    /// ```
    subscript(index: Int) -> SQLiteValue {
        let value = handle(index)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT: return .text(string(at: index) ?? "")
        case SQLITE_BLOB: return .blob(data(at: index) ?? Data())
        default: return .null
        }
    }

    /// Whether the argument is NULL.
    ///
    /// ```swift
    /// if arguments.isNull(at: 0) { return .null }
    /// ```
    func isNull(at index: Int) -> Bool {
        sqlite3_value_type(handle(index)) == SQLITE_NULL
    }

    /// The argument as a 64-bit integer (SQLite's conversion; 0 for NULL).
    ///
    /// ```swift
    /// let pk = arguments.int64(at: 2)
    /// ```
    func int64(at index: Int) -> Int64 {
        sqlite3_value_int64(handle(index))
    }

    /// The argument as a double (SQLite's conversion; 0 for NULL).
    ///
    /// ```swift
    /// let value = arguments.double(at: 4)
    /// ```
    func double(at index: Int) -> Double {
        sqlite3_value_double(handle(index))
    }

    /// The argument as text with its exact byte length (NUL bytes kept); nil for NULL.
    ///
    /// ```swift
    /// let table = arguments.string(at: 0)   // "ZBOOK"
    /// ```
    func string(at index: Int) -> String? {
        let value = handle(index)
        guard sqlite3_value_type(value) != SQLITE_NULL, let text = sqlite3_value_text(value) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    /// The argument as bytes; nil for NULL.
    ///
    /// ```swift
    /// let bytes = arguments.data(at: 0)
    /// ```
    func data(at index: Int) -> Data? {
        let value = handle(index)
        guard sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        guard let bytes = sqlite3_value_blob(value) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_value_bytes(value)))
    }

    private func handle(_ index: Int) -> OpaquePointer? {
        precondition(index >= 0 && index < count, "SQL function argument \(index) out of range 0..<\(count)")
        return values?[index]
    }
}
