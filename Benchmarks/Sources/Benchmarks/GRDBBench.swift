import Foundation
import GRDB

/// GRDB, the best-known Swift SQLite library: records (`FetchableRecord`/`PersistableRecord`) and raw SQL with
/// `Row`, on the same table layout.
struct GRDBItem: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "ZITEM"
    enum CodingKeys: String, CodingKey {
        case primaryKey = "Z_PK", entity = "Z_ENT", version = "Z_OPT", flag = "ZFLAG", id = "ZID", createdAt = "ZCREATEDAT"
        case score = "ZSCORE", name = "ZNAME", payload = "ZPAYLOAD"
    }
    var primaryKey: Int64
    var entity: Int64 = 1
    var version: Int64 = 1
    var flag: Bool
    var id: Int64
    var createdAt: Double
    var score: Double
    var name: String
    var payload: Data
}

final class GRDBDatabase {
    let queue: DatabaseQueue

    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
    }

    func createSchema() throws {
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFLAG INTEGER, ZID INTEGER, ZCREATEDAT TIMESTAMP,
                                    ZSCORE FLOAT, ZNAME VARCHAR, ZPAYLOAD BLOB);
                CREATE INDEX ZITEM_ZSCORE_INDEX ON ZITEM (ZSCORE);
                CREATE TABLE ZPARENT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                CREATE TABLE ZCHILD (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARENT INTEGER, ZVALUE FLOAT, ZNAME VARCHAR);
                CREATE INDEX ZCHILD_ZPARENT_INDEX ON ZCHILD (ZPARENT);
                """)
        }
    }

    func insert(_ rows: [ItemRow]) throws {
        try queue.write { db in
            for (index, row) in rows.enumerated() {
                try GRDBItem(primaryKey: Int64(index + 1), flag: row.flag, id: row.id, createdAt: row.createdAt.timeIntervalSinceReferenceDate,
                             score: row.score, name: row.name, payload: row.payload).insert(db)
            }
        }
    }

    /// The rows grouped by flag, with the count, sum and average of their scores (the group-by workload).
    func groupByFlag() throws -> [(flag: Bool, count: Int64, sum: Double, average: Double)] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT ZFLAG, COUNT(ZSCORE), SUM(ZSCORE), AVG(ZSCORE) FROM ZITEM GROUP BY ZFLAG").map { ($0[0], $0[1], $0[2], $0[3]) }
        }
    }

    func fetchAllRecords() throws -> [GRDBItem] { try queue.read { try GRDBItem.fetchAll($0) } }

    func fetchAllRows() throws -> [(Int64, String, Double)] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT Z_PK, ZNAME, ZSCORE, ZID, ZCREATEDAT, ZFLAG, ZPAYLOAD FROM ZITEM").map { ($0[0], $0[1], $0[2]) }
        }
    }

    func rangeFetch(_ low: Double, _ high: Double) throws -> [GRDBItem] {
        try queue.read { db in try GRDBItem.filter(sql: "ZSCORE BETWEEN ? AND ?", arguments: [low, high]).fetchAll(db) }
    }

    func editAll() throws {
        try queue.write { db in
            for var item in try GRDBItem.fetchAll(db) {
                item.score += 1
                item.name += "!"
                item.version += 1
                try item.update(db)
            }
        }
    }

    func deleteAll() throws {
        try queue.write { db in
            for item in try GRDBItem.fetchAll(db) { try item.delete(db) }
        }
    }

    func batchUpdate() throws { try queue.write { try $0.execute(sql: "UPDATE ZITEM SET Z_OPT = Z_OPT + 1, ZFLAG = 1") } }
    func batchDelete() throws { try queue.write { try $0.execute(sql: "DELETE FROM ZITEM") } }

    func insertFamilies(parents: Int, children: Int) throws {
        try queue.write { db in
            for index in 0..<parents {
                try db.execute(sql: "INSERT INTO ZPARENT (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, 2, 1, ?)", arguments: [index + 1, "parent \(index)"])
            }
            for index in 0..<children {
                try db.execute(sql: "INSERT INTO ZCHILD (Z_PK, Z_ENT, Z_OPT, ZPARENT, ZVALUE, ZNAME) VALUES (?, 3, 1, ?, ?, ?)",
                               arguments: [index + 1, index % parents + 1, Double(index), "child \(index)"])
            }
        }
    }

    func traverse() throws -> Double {
        try queue.read { db in
            var names: [Int64: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT Z_PK, ZNAME FROM ZPARENT") { names[row[0]] = row[1] }
            var total = 0.0
            for row in try Row.fetchAll(db, sql: "SELECT ZPARENT, ZVALUE, ZNAME FROM ZCHILD") {
                let parent: Int64 = row[0]
                if names[parent] != nil { total += row[1] as Double }
            }
            return total
        }
    }
}
