import CSQLite
import Foundation

/// Application-defined collations (`sqlite3_create_collation_v2`), for `ORDER BY … COLLATE name` and comparisons.
///
/// ```swift
/// try connection.registerCollation(name: "ocd_caseinsensitive") { left, right in
///     left.caseInsensitiveCompare(right)
/// }
/// try connection.fetchAll("SELECT ZTITLE FROM ZBOOK ORDER BY ZTITLE COLLATE ocd_caseinsensitive")
/// ```
///
/// The closure is retained by SQLite and released by the destructor callback when the collation is replaced or the
/// connection closes. It must be a total order (consistent, antisymmetric, transitive), or indexes and sorts using
/// it misbehave.
extension SQLiteConnection {
    /// Registers (or replaces) a collation comparing UTF-8 strings.
    ///
    /// ```swift
    /// try connection.registerCollation(name: "ocd_length") { left, right in
    ///     left.count == right.count ? .orderedSame : (left.count < right.count ? .orderedAscending : .orderedDescending)
    /// }
    /// ```
    ///
    /// - Throws: an `NSSQLiteError` error for an invalid name.
    func registerCollation(name: String, _ compare: @escaping (String, String) -> ComparisonResult) throws {
        try Self.checkRegistrationName(name, kind: "collation")
        let box = Unmanaged.passRetained(SQLiteCollationBox(compare)).toOpaque()
        let code = sqlite3_create_collation_v2(
            handle, name, SQLITE_UTF8, box,
            { box, leftCount, left, rightCount, right in
                let compare = Unmanaged<SQLiteCollationBox>.fromOpaque(box!).takeUnretainedValue().compare
                let result = compare(
                    SQLiteCollationBox.string(left, count: leftCount), SQLiteCollationBox.string(right, count: rightCount))
                switch result {
                case .orderedAscending: return -1
                case .orderedSame: return 0
                case .orderedDescending: return 1
                }
            },
            { box in
                if let box { Unmanaged<SQLiteCollationBox>.fromOpaque(box).release() }
            })
        guard code == SQLITE_OK else {
            // Unlike sqlite3_create_function_v2, a failed sqlite3_create_collation_v2 does not call the destructor.
            Unmanaged<SQLiteCollationBox>.fromOpaque(box).release()
            throw reportFailure(code, operation: "registering collation \(name)", sql: nil)
        }
    }
}

/// The Swift closure of a registered collation, owned by SQLite through `Unmanaged`: retained when registered,
/// released by SQLite's destructor callback.
///
/// ```swift
/// let box = Unmanaged.passRetained(SQLiteCollationBox { $0.compare($1) }).toOpaque()
/// ```
final class SQLiteCollationBox {
    /// The comparison.
    let compare: (String, String) -> ComparisonResult

    /// Boxes a comparison for SQLite's user-data pointer.
    ///
    /// ```swift
    /// let box = SQLiteCollationBox { $0.compare($1) }
    /// ```
    init(_ compare: @escaping (String, String) -> ComparisonResult) {
        self.compare = compare
    }

    /// Decodes `count` UTF-8 bytes (SQLite passes no terminator).
    ///
    /// ```swift
    /// SQLiteCollationBox.string(pointer, count: 3)
    /// ```
    static func string(_ bytes: UnsafeRawPointer?, count: Int32) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }
}
