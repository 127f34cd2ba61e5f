import CSQLite
import Foundation

/// Binding parameters by position. Indexes are 1-based, as in SQLite (`?1`, or the n-th `?`).
///
/// Text and blobs are bound with their exact byte length and copied by SQLite (`SQLITE_TRANSIENT`), so the Swift
/// value need not outlive the call and any bytes — NUL included — round-trip exactly. Values are never spliced
/// into SQL text.
///
/// ```swift
/// let statement = try connection.prepare("INSERT INTO ZNOTE (ZTEXT, ZDATA, ZRATING) VALUES (?, ?, ?)")
/// try statement.bind("'; DROP TABLE ZNOTE--", at: 1)   // stored as written
/// try statement.bind(Data([0, 1, 2]), at: 2)
/// try statement.bindNull(at: 3)
/// try statement.execute()
/// ```
extension SQLiteStatement {
    /// `SQLITE_TRANSIENT`: SQLite copies the bytes before the bind call returns.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self)
    }

    /// The number of parameters the SQL declares (`sqlite3_bind_parameter_count`).
    ///
    /// ```swift
    /// try connection.prepare("SELECT ?, ?").parameterCount   // 2
    /// ```
    var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// Binds any value.
    ///
    /// ```swift
    /// try statement.bind(SQLiteValue.real(1.5), at: 1)
    /// ```
    ///
    /// - Throws: an `NSSQLiteError` error with `SQLITE_RANGE` for an index outside `1...parameterCount`, or
    ///   `SQLITE_TOOBIG` for text or a blob over SQLite's length limit.
    func bind(_ value: SQLiteValue, at index: Int32) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let integer): try bind(integer, at: index)
        case .real(let real): try bind(real, at: index)
        case .text(let text): try bind(text, at: index)
        case .blob(let data): try bind(data, at: index)
        }
    }

    /// Binds a list of values to parameters 1, 2, ….
    ///
    /// ```swift
    /// try statement.bind([.integer(1), .text("a")])
    /// ```
    func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds a 64-bit integer.
    ///
    /// ```swift
    /// try statement.bind(Int64(42), at: 1)
    /// ```
    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value), index: index)
        if connection.sqlDebugLevel >= 2 { boundValuesForLog[index] = .integer(value) }
    }

    /// Binds a double. NaN is stored as NULL (SQLite's rule).
    ///
    /// ```swift
    /// try statement.bind(0.25, at: 1)
    /// ```
    func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value), index: index)
        if connection.sqlDebugLevel >= 2 { boundValuesForLog[index] = .real(value) }
    }

    /// Binds text: its UTF-8 bytes with their exact length, so embedded NUL bytes are kept.
    ///
    /// ```swift
    /// try statement.bind("a\u{0}b", at: 1)   // 3 bytes stored
    /// ```
    func bind(_ value: String, at index: Int32) throws {
        var text = value
        let code = text.withUTF8 { bytes -> Int32 in
            if let base = bytes.baseAddress {
                let pointer = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                return sqlite3_bind_text64(handle, index, pointer, sqlite3_uint64(bytes.count), Self.transient, UInt8(SQLITE_UTF8))
            }
            // An empty buffer may have no address, and a NULL pointer would bind SQL NULL instead of "".
            return sqlite3_bind_text64(handle, index, "", 0, Self.transient, UInt8(SQLITE_UTF8))
        }
        try check(code, index: index)
        if connection.sqlDebugLevel >= 2 { boundValuesForLog[index] = .text(value) }
    }

    /// Binds a blob. An empty `Data` is stored as a zero-length blob, not NULL.
    ///
    /// ```swift
    /// try statement.bind(Data([0xFF, 0x00]), at: 1)
    /// ```
    func bind(_ value: Data, at index: Int32) throws {
        let code = value.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
            return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(bytes.count), Self.transient)
        }
        try check(code, index: index)
        if connection.sqlDebugLevel >= 2 { boundValuesForLog[index] = .blob(value) }
    }

    /// Binds a blob from bytes. An empty array is stored as a zero-length blob, not NULL.
    ///
    /// ```swift
    /// try statement.bind([0x01, 0x02] as [UInt8], at: 1)
    /// ```
    func bind(_ value: [UInt8], at index: Int32) throws {
        let code = value.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
            return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(bytes.count), Self.transient)
        }
        try check(code, index: index)
        if connection.sqlDebugLevel >= 2 { boundValuesForLog[index] = .blob(Data(value)) }
    }

    /// Binds SQL NULL.
    ///
    /// ```swift
    /// try statement.bindNull(at: 2)
    /// ```
    func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index), index: index)
        if connection.sqlDebugLevel >= 2 { boundValuesForLog[index] = .null }
    }

    /// Throws the connection's error for a failed bind.
    private func check(_ code: Int32, index: Int32) throws {
        guard code != SQLITE_OK else { return }
        throw connection.reportFailure(code, operation: "binding parameter \(index) of", sql: sql)
    }
}
