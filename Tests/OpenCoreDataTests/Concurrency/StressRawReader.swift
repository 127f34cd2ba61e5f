import CSQLite
import Foundation

// The oracle's view of the store file: the SQLite C API, not the library's connection.

/// A row as the file has it: the version (`Z_OPT`) and the tracked values (to-ones as the destination's key).
struct StoredRow: Equatable, CustomStringConvertible {
    var version: Int64
    var values: StressRow

    var description: String { "v\(version) \(values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))" }
}

/// An object of the stress model in the file: its entity and primary key.
struct StressKey: Hashable, Comparable, CustomStringConvertible {
    var entity: String
    var primaryKey: Int64
    static func < (a: StressKey, b: StressKey) -> Bool { (a.entity, a.primaryKey) < (b.entity, b.primaryKey) }
    var description: String { "\(entity) \(primaryKey)" }
}

/// A row of the `Item.tags` / `Tag.items` join table.
struct TagPair: Hashable, Comparable, CustomStringConvertible {
    var item: Int64
    var tag: Int64
    static func < (a: TagPair, b: TagPair) -> Bool { (a.item, a.tag) < (b.item, b.tag) }
    var description: String { "item \(item)-tag \(tag)" }
}

/// Everything the file holds of the stress model: rows, the items' order keys in their bucket's queue, tag pairs.
struct FileState: Equatable {
    var rows: [StressKey: StoredRow] = [:]
    /// `Z_FOK_QUEUEDIN` of each item (nil: NULL).
    var orderKeys: [Int64: Int64?] = [:]
    var pairs: Set<TagPair> = []

    func row(_ entity: String, _ primaryKey: Int64) -> StoredRow? { rows[StressKey(entity: entity, primaryKey: primaryKey)] }

    /// The items whose `key` to-one is `bucket`.
    func items(_ key: String, of bucket: Int64) -> [Int64] {
        rows.filter { $0.key.entity == "Item" && $0.value.values[key] == .integer(bucket) }.map(\.key.primaryKey).sorted()
    }

    /// The bucket's queue as a fetch reads it: by order key (NULL first), then primary key.
    func queue(of bucket: Int64) -> [Int64] {
        items("queuedIn", of: bucket).sorted { a, b in
            let ka = orderKeys[a].flatMap { $0 } ?? .min, kb = orderKeys[b].flatMap { $0 } ?? .min
            return (ka, a) < (kb, b)
        }
    }

    func tags(of item: Int64) -> Set<Int64> { Set(pairs.filter { $0.item == item }.map(\.tag)) }
    func items(ofTag tag: Int64) -> Set<Int64> { Set(pairs.filter { $0.tag == tag }.map(\.item)) }
}

/// Reads rows of the stress model straight from the file (read-only, with its own busy timeout).
final class StressRawReader {
    private var db: OpaquePointer?
    /// The join table of `Item.tags` and its item and tag columns (found in the schema).
    private lazy var joinTable: (name: String, item: String, tag: String)? = findJoinTable()

    init(path: String) {
        precondition(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, "cannot open \(path)")
        sqlite3_busy_timeout(db, 30_000)
    }

    deinit { sqlite3_close_v2(db) }

    /// The row of `entity` with primary key `primaryKey`, or nil if there is none.
    func row(_ entity: String, _ primaryKey: Int64) -> StoredRow? {
        let keys = StressModel.trackedKeys[entity] ?? []
        let columns = (["Z_OPT"] + keys.map { "Z" + $0.uppercased() }).joined(separator: ", ")
        return query("SELECT \(columns) FROM Z\(entity.uppercased()) WHERE Z_PK = \(primaryKey)").first.map { values in
            var row = StressRow()
            for (offset, key) in keys.enumerated() { row[key] = values[offset + 1] }
            guard case .integer(let version) = values[0] else { preconditionFailure("no Z_OPT in \(entity) \(primaryKey)") }
            return StoredRow(version: version, values: row)
        }
    }

    /// Every row of `entity`, by primary key.
    func allRows(_ entity: String) -> [Int64: StoredRow] {
        let keys = StressModel.trackedKeys[entity] ?? []
        let columns = (["Z_PK", "Z_OPT"] + keys.map { "Z" + $0.uppercased() }).joined(separator: ", ")
        var result: [Int64: StoredRow] = [:]
        for values in query("SELECT \(columns) FROM Z\(entity.uppercased())") {
            guard case .integer(let primaryKey) = values[0], case .integer(let version) = values[1] else { continue }
            var row = StressRow()
            for (offset, key) in keys.enumerated() { row[key] = values[offset + 2] }
            result[primaryKey] = StoredRow(version: version, values: row)
        }
        return result
    }

    /// The whole file, in one read transaction (a consistent snapshot).
    func fileState() -> FileState {
        _ = query("BEGIN")
        defer { _ = query("COMMIT") }
        var state = FileState()
        for entity in StressModel.entities {
            for (primaryKey, row) in allRows(entity) { state.rows[StressKey(entity: entity, primaryKey: primaryKey)] = row }
        }
        for values in query("SELECT Z_PK, Z_FOK_QUEUEDIN FROM ZITEM") {
            guard case .integer(let primaryKey) = values[0] else { continue }
            if case .integer(let key) = values[1] { state.orderKeys[primaryKey] = key } else { state.orderKeys[primaryKey] = .some(nil) }
        }
        if let join = joinTable {
            for values in query("SELECT \(join.item), \(join.tag) FROM \(join.name)") {
                guard case .integer(let item) = values[0], case .integer(let tag) = values[1] else { continue }
                state.pairs.insert(TagPair(item: item, tag: tag))
            }
        }
        return state
    }

    private func findJoinTable() -> (name: String, item: String, tag: String)? {
        let tables = query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { row -> String? in
            if case .text(let name)? = row.first { return name }
            return nil
        }
        for table in tables where table.hasPrefix("Z_") && (table.hasSuffix("TAGS") || table.hasSuffix("ITEMS")) {
            let columns = query("PRAGMA table_info(\(table))").compactMap { row -> String? in
                if case .text(let name) = row[1] { return name }
                return nil
            }
            guard let item = columns.first(where: { $0.hasSuffix("ITEMS") }), let tag = columns.first(where: { $0.hasSuffix("TAGS") }) else { continue }
            return (table, item, tag)
        }
        return nil
    }

    /// `PRAGMA integrity_check`'s answer.
    func integrityCheck() -> [String] {
        query("PRAGMA integrity_check").map { row in
            if case .text(let text)? = row.first { return text }
            return row.first?.description ?? ""
        }
    }

    private func query(_ sql: String) -> [[StressValue]] {
        while true {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
                preconditionFailure("\(String(cString: sqlite3_errmsg(db))) in \(sql)")
            }
            defer { sqlite3_finalize(statement) }
            var rows: [[StressValue]] = []
            var code = sqlite3_step(statement)
            while code == SQLITE_ROW {
                rows.append((0..<sqlite3_column_count(statement)).map { column in
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, column))
                    case SQLITE_FLOAT: .real(sqlite3_column_double(statement, column))
                    case SQLITE_TEXT: .text(String(cString: sqlite3_column_text(statement, column)))
                    default: .null
                    }
                })
                code = sqlite3_step(statement)
            }
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_BUSY || code == SQLITE_LOCKED else {
                preconditionFailure("\(String(cString: sqlite3_errmsg(db))) in \(sql)")
            }
        }
    }
}
