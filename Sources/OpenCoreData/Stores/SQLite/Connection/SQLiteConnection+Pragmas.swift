import Foundation

/// User pragmas (`NSSQLitePragmasOption`: a dictionary of pragma name → value) and pragma reads.
///
/// Names are checked to be identifiers (optionally `schema.name`) and values are rendered as SQL literals —
/// numbers as numbers, strings single-quoted with quotes doubled — so no untrusted text reaches the SQL unquoted.
///
/// ```swift
/// try connection.applyPragmas(["journal_mode": "DELETE", "cache_size": -4000, "secure_delete": true])
/// try connection.pragmaValue("journal_mode")   // .text("delete")
/// ```
extension SQLiteConnection {
    /// Applies pragmas in name order; rows a pragma returns are discarded. Every name and value is checked before
    /// any pragma runs.
    ///
    /// `page_size` and `auto_vacuum` only take effect before the database's first page is written, which a read-write
    /// open already does (it sets the journal mode): pass them in ``Configuration/pragmas`` to have them apply to a
    /// new store.
    ///
    /// ```swift
    /// try connection.applyPragmas(["synchronous": "FULL", "temp_store": 2])
    /// ```
    ///
    /// - Parameter pragmas: values may be `String`, `Bool`, any integer or floating-point type, or `NSNumber`.
    /// - Throws: an `NSSQLiteError` error (`SQLITE_ERROR`) for a name that is not an identifier or a value of another
    ///   type, a non-finite number or a string with a NUL byte; or the error SQLite reports for a pragma.
    func applyPragmas(_ pragmas: [String: Any]) throws {
        try applyPragmaValues(try Self.pragmaValues(pragmas))
    }

    /// Applies pragmas already converted to values (see ``applyPragmas(_:)``).
    ///
    /// ```swift
    /// try connection.applyPragmaValues(["cache_size": .integer(-4000)])
    /// ```
    func applyPragmaValues(_ pragmas: [String: SQLiteValue]) throws {
        let statements = try pragmas.keys.sorted().map { name in
            "PRAGMA \(try Self.pragmaName(name)) = \(try Self.pragmaLiteral(pragmas[name] ?? .null, name: name))"
        }
        for sql in statements {
            let statement = try prepare(sql)
            while try statement.step() {}
        }
    }

    /// Reads a pragma: the first column of its first row, or nil when it returns no row.
    ///
    /// ```swift
    /// try connection.pragmaValue("auto_vacuum")   // .integer(2)
    /// ```
    ///
    /// - Throws: an `NSSQLiteError` error for a name that is not an identifier.
    func pragmaValue(_ name: String) throws -> SQLiteValue? {
        try fetchValue("PRAGMA \(try Self.pragmaName(name))")
    }

    /// Converts an `NSSQLitePragmasOption`-style dictionary to checked values.
    ///
    /// ```swift
    /// try SQLiteConnection.pragmaValues(["journal_mode": "DELETE", "secure_delete": true])
    /// // ["journal_mode": .text("DELETE"), "secure_delete": .integer(1)]
    /// ```
    ///
    /// - Throws: as ``applyPragmas(_:)``, for the first invalid name or value.
    static func pragmaValues(_ pragmas: [String: Any]) throws -> [String: SQLiteValue] {
        var values: [String: SQLiteValue] = [:]
        for name in pragmas.keys.sorted() {
            values[try pragmaName(name)] = try pragmaValue(pragmas[name] as Any, name: name)
        }
        return values
    }

    /// `name` if it is a pragma name — an identifier, or `schema.identifier` — else an error.
    ///
    /// ```swift
    /// try SQLiteConnection.pragmaName("main.cache_size")   // "main.cache_size"
    /// try SQLiteConnection.pragmaName("x; DROP TABLE y")   // throws
    /// ```
    static func pragmaName(_ name: String) throws -> String {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy(isIdentifier) else {
            throw SQLiteError.make(
                code: .error, message: "invalid pragma name \(Self.quotedForMessage(name))", operation: "applying pragmas")
        }
        return name
    }

    /// A pragma value given as a Swift or Foundation value, checked and converted.
    ///
    /// ```swift
    /// try SQLiteConnection.pragmaValue(true, name: "secure_delete")   // .integer(1)
    /// ```
    static func pragmaValue(_ value: Any, name: String) throws -> SQLiteValue {
        func invalid(_ reason: String) -> NSError {
            SQLiteError.make(code: .error, message: "invalid value for pragma \(name): \(reason)", operation: "applying pragmas")
        }
        let converted: SQLiteValue
        if let number = value as? NSNumber, type(of: value) is NSNumber.Type {
            // A Foundation number (from a property list or an NSDictionary): integral values become integers.
            let real = number.doubleValue
            guard real.isFinite else { throw invalid("\(real) is not finite") }
            return real == real.rounded() && abs(real) < 9.0e15 ? .integer(number.int64Value) : .real(real)
        }
        switch value {
        case let string as String:
            guard !string.utf8.contains(0) else { throw invalid("the string contains a NUL character") }
            converted = .text(string)
        case let bool as Bool:
            converted = .integer(bool ? 1 : 0)
        case let integer as any BinaryInteger:
            guard let exact = Int64(exactly: integer) else { throw invalid("\(integer) is out of range") }
            converted = .integer(exact)
        case let real as Double:
            converted = .real(real)
        case let real as Float:
            converted = .real(Double(real))
        default:
            throw invalid("unsupported type \(type(of: value))")
        }
        if case .real(let real) = converted, !real.isFinite { throw invalid("\(real) is not finite") }
        return converted
    }

    /// A pragma value as an SQL literal: numbers as numbers, text single-quoted with quotes doubled.
    ///
    /// ```swift
    /// try SQLiteConnection.pragmaLiteral(.text("it's"), name: "x")   // "'it''s'"
    /// ```
    ///
    /// - Throws: for NULL, blobs, non-finite numbers and text with a NUL byte, which no pragma takes.
    static func pragmaLiteral(_ value: SQLiteValue, name: String) throws -> String {
        switch value {
        case .integer(let integer):
            return String(integer)
        case .real(let real) where real.isFinite:
            return String(real)
        case .text(let text) where !text.utf8.contains(0):
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        default:
            throw SQLiteError.make(
                code: .error, message: "invalid value for pragma \(name): \(value.description)", operation: "applying pragmas")
        }
    }

    /// `name` in double quotes, for identifiers such as savepoint names; the name must be an identifier.
    ///
    /// ```swift
    /// try SQLiteConnection.quotedIdentifier("import_1")   // "\"import_1\""
    /// ```
    static func quotedIdentifier(_ name: String) throws -> String {
        guard isIdentifier(Substring(name)) else {
            throw SQLiteError.make(code: .error, message: "invalid identifier \(quotedForMessage(name))", operation: "quoting")
        }
        return "\"\(name)\""
    }

    /// Whether `text` is an ASCII identifier: a letter or `_`, then letters, digits or `_`.
    ///
    /// ```swift
    /// SQLiteConnection.isIdentifier("journal_mode")   // true
    /// ```
    static func isIdentifier(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, first == UInt8(ascii: "_") || isASCIILetter(first) else { return false }
        return text.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isASCIILetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Untrusted text shown in an error message: quoted, control characters escaped, shortened.
    private static func quotedForMessage(_ text: String) -> String {
        let shown = text.count > 80 ? text.prefix(80) + "…" : Substring(text)
        return "\"" + shown.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined() + "\""
    }
}
