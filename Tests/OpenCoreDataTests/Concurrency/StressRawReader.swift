import CSQLite
import Foundation

// The oracle's view of the store file: the SQLite C API, not the library's connection.

/// A row as the file has it: the version (`Z_OPT`) and the tracked values.
struct StoredRow: Equatable {
    var version: Int64
    var values: StressRow
}

/// Reads rows of the stress model straight from the file (read-only, with its own busy timeout).
final class StressRawReader {
    private var db: OpaquePointer?

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
