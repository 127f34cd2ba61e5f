import CSQLite
import Foundation

/// Application-defined scalar SQL functions (`sqlite3_create_function_v2`).
///
/// Needed for Foundation string comparison (case/diacritic-insensitive, supplied by the predicate layer), regular
/// expressions (`MATCHES`), and the functions that Apple's derived-attribute triggers call —
/// `NSCoreDataDATriggerUpdatedAffectedObjectValue` and `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue` — without
/// which every write to those tables fails with "no such function":
///
/// ```swift
/// for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
///     // (table, Z_ENT, Z_PK, property name, new value): the store refreshes that object's value.
///     try connection.registerFunction(name: name, argumentCount: 5, deterministic: false) { arguments in
///         changes.append(arguments)
///         return .null
///     }
/// }
/// ```
///
/// The closure is retained by SQLite and released by the destructor callback when the function is replaced, or when
/// the connection closes. An error thrown by the closure fails the statement with `SQLITE_ERROR` and the error's
/// description as message.
extension SQLiteConnection {
    /// Registers (or replaces) a scalar function receiving its arguments as values.
    ///
    /// ```swift
    /// try connection.registerFunction(name: "ocd_upper", argumentCount: 1, deterministic: true) { arguments in
    ///     guard case .text(let text) = arguments[0] else { return arguments[0] }
    ///     return .text(text.uppercased())
    /// }
    /// try connection.fetchValue("SELECT ocd_upper('abc')")   // .text("ABC")
    /// ```
    ///
    /// - Parameters:
    ///   - argumentCount: the number of arguments, or -1 for any number.
    ///   - deterministic: whether the result depends only on the arguments (`SQLITE_DETERMINISTIC`), which lets SQLite
    ///     factor calls out and use the function in indexes.
    /// - Throws: an `NSSQLiteError` error for an invalid name or argument count.
    func registerFunction(
        name: String,
        argumentCount: Int32,
        deterministic: Bool,
        _ body: @escaping ([SQLiteValue]) throws -> SQLiteValue
    ) throws {
        try registerRawFunction(name: name, argumentCount: argumentCount, deterministic: deterministic) { arguments in
            try body(Array(arguments))
        }
    }

    /// Registers (or replaces) a scalar function reading its arguments lazily: the fast form for functions called
    /// once per row, which avoids building an array of values per call.
    ///
    /// ```swift
    /// try connection.registerRawFunction(name: "ocd_matches", argumentCount: 2, deterministic: true) { arguments in
    ///     guard let text = arguments.string(at: 0), let pattern = arguments.string(at: 1) else { return .null }
    ///     return .integer(text.range(of: "^(?:\(pattern))$", options: .regularExpression) != nil ? 1 : 0)
    /// }
    /// ```
    func registerRawFunction(
        name: String,
        argumentCount: Int32,
        deterministic: Bool,
        _ body: @escaping (SQLiteFunctionArguments) throws -> SQLiteValue
    ) throws {
        try Self.checkRegistrationName(name, kind: "function")
        let box = Unmanaged.passRetained(SQLiteFunctionBox(body)).toOpaque()
        let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
        // On failure SQLite calls the destructor itself, which releases the box.
        let code = sqlite3_create_function_v2(
            handle, name, argumentCount, flags, box,
            { context, count, values in
                let box = Unmanaged<SQLiteFunctionBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
                do {
                    let result = try box.body(SQLiteFunctionArguments(values: values, count: Int(count)))
                    SQLiteFunctionBox.setResult(result, context: context)
                } catch {
                    SQLiteFunctionBox.setError(error, context: context)
                }
            },
            nil, nil,
            { box in
                if let box { Unmanaged<SQLiteFunctionBox>.fromOpaque(box).release() }
            })
        guard code == SQLITE_OK else {
            throw reportFailure(code, operation: "registering function \(name)", sql: nil)
        }
    }

    /// Refuses names SQLite would truncate (a NUL byte) or reject (empty, longer than 255 bytes).
    ///
    /// ```swift
    /// try SQLiteConnection.checkRegistrationName("ocd_upper", kind: "function")   // passes
    /// ```
    static func checkRegistrationName(_ name: String, kind: String) throws {
        guard !name.isEmpty, name.utf8.count <= 255, !name.utf8.contains(0) else {
            throw SQLiteError.make(code: .misuse, message: "invalid \(kind) name", operation: "registering \(kind) \(name.debugDescription)")
        }
    }
}

/// The Swift closure of a registered function, owned by SQLite through `Unmanaged`: retained when registered,
/// released by SQLite's destructor callback.
///
/// ```swift
/// let box = Unmanaged.passRetained(SQLiteFunctionBox { _ in .null }).toOpaque()
/// ```
final class SQLiteFunctionBox {
    /// The function's implementation.
    let body: (SQLiteFunctionArguments) throws -> SQLiteValue

    /// Boxes an implementation for SQLite's user-data pointer.
    ///
    /// ```swift
    /// let box = Unmanaged.passRetained(SQLiteFunctionBox { _ in .null }).toOpaque()
    /// ```
    init(_ body: @escaping (SQLiteFunctionArguments) throws -> SQLiteValue) {
        self.body = body
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the result bytes.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self)
    }

    /// Sets a function's result (`sqlite3_result_*`), text and blobs with their exact length.
    ///
    /// ```swift
    /// SQLiteFunctionBox.setResult(.integer(1), context: context)
    /// ```
    static func setResult(_ value: SQLiteValue, context: OpaquePointer?) {
        switch value {
        case .null:
            sqlite3_result_null(context)
        case .integer(let integer):
            sqlite3_result_int64(context, integer)
        case .real(let real):
            sqlite3_result_double(context, real)
        case .text(var text):
            text.withUTF8 { bytes in
                if let base = bytes.baseAddress {
                    let pointer = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                    sqlite3_result_text64(context, pointer, sqlite3_uint64(bytes.count), transient, UInt8(SQLITE_UTF8))
                } else {
                    sqlite3_result_text64(context, "", 0, transient, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress, !bytes.isEmpty {
                    sqlite3_result_blob64(context, base, sqlite3_uint64(bytes.count), transient)
                } else {
                    sqlite3_result_zeroblob(context, 0)
                }
            }
        }
    }

    /// Fails the function call with the error's description (`sqlite3_result_error`).
    ///
    /// ```swift
    /// SQLiteFunctionBox.setError(error, context: context)
    /// ```
    static func setError(_ error: any Error, context: OpaquePointer?) {
        var message: String
        if let localized = error as? LocalizedError, let description = localized.errorDescription {
            message = description
        } else if type(of: error) is NSError.Type {
            message = (error as NSError).localizedDescription
        } else {
            message = String(describing: error)
        }
        message.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                let pointer = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                sqlite3_result_error(context, pointer, Int32(clamping: bytes.count))
            } else {
                sqlite3_result_error(context, "", 0)
            }
        }
    }
}
