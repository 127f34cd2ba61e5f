import CSQLiteBench
import Foundation

/// The physical limit: the SQLite C API with prepared statements reused, one class instance per row, the same
/// table layout as a Core Data store (`ZITEM` with `Z_PK`, `Z_ENT`, `Z_OPT`), WAL and `synchronous=NORMAL`.
final class RawItem {
    var primaryKey: Int64
    var id: Int64
    var name: String
    var score: Double
    var createdAt: Date
    var flag: Bool
    var payload: Data

    init(primaryKey: Int64, id: Int64, name: String, score: Double, createdAt: Date, flag: Bool, payload: Data) {
        self.primaryKey = primaryKey
        self.id = id
        self.name = name
        self.score = score
        self.createdAt = createdAt
        self.flag = flag
        self.payload = payload
    }
}

final class RawDatabase {
    private(set) var db: OpaquePointer?
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String) {
        precondition(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK)
        execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
    }

    deinit { sqlite3_close_v2(db) }

    func execute(_ sql: String) {
        var error: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &error) != SQLITE_OK {
            fatalError("raw SQLite: \(String(cString: error!)) in \(sql)")
        }
    }

    func prepare(_ sql: String) -> OpaquePointer? {
        var statement: OpaquePointer?
        precondition(sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
        return statement
    }

    static func createSchema(_ database: RawDatabase) {
        database.execute("""
            CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFLAG INTEGER, ZID INTEGER, ZCREATEDAT TIMESTAMP,
                                ZSCORE FLOAT, ZNAME VARCHAR, ZPAYLOAD BLOB);
            CREATE INDEX ZITEM_ZSCORE_INDEX ON ZITEM (ZSCORE);
            CREATE TABLE ZPARENT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
            CREATE TABLE ZCHILD (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARENT INTEGER, ZVALUE FLOAT, ZNAME VARCHAR);
            CREATE INDEX ZCHILD_ZPARENT_INDEX ON ZCHILD (ZPARENT);
            """)
    }

    func insert(_ rows: [ItemRow]) {
        execute("BEGIN")
        let statement = prepare("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZFLAG, ZID, ZCREATEDAT, ZSCORE, ZNAME, ZPAYLOAD) VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?)")
        for (index, row) in rows.enumerated() {
            sqlite3_bind_int64(statement, 1, Int64(index + 1))
            sqlite3_bind_int64(statement, 2, row.flag ? 1 : 0)
            sqlite3_bind_int64(statement, 3, row.id)
            sqlite3_bind_double(statement, 4, row.createdAt.timeIntervalSinceReferenceDate)
            sqlite3_bind_double(statement, 5, row.score)
            sqlite3_bind_text(statement, 6, row.name, -1, Self.transient)
            _ = row.payload.withUnsafeBytes { sqlite3_bind_blob(statement, 7, $0.baseAddress, Int32($0.count), Self.transient) }
            precondition(sqlite3_step(statement) == SQLITE_DONE)
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        execute("COMMIT")
    }

    /// Every row of a SELECT of the item columns, as objects.
    func items(_ whereClause: String = "", _ bind: ((OpaquePointer?) -> Void)? = nil) -> [RawItem] {
        let statement = prepare("SELECT Z_PK, ZID, ZNAME, ZSCORE, ZCREATEDAT, ZFLAG, ZPAYLOAD FROM ZITEM \(whereClause)")
        bind?(statement)
        var result: [RawItem] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let bytes = sqlite3_column_blob(statement, 6)
            let count = Int(sqlite3_column_bytes(statement, 6))
            result.append(RawItem(
                primaryKey: sqlite3_column_int64(statement, 0), id: sqlite3_column_int64(statement, 1),
                name: String(cString: sqlite3_column_text(statement, 2)), score: sqlite3_column_double(statement, 3),
                createdAt: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 4)),
                flag: sqlite3_column_int64(statement, 5) != 0, payload: bytes.map { Data(bytes: $0, count: count) } ?? Data()))
        }
        sqlite3_finalize(statement)
        return result
    }

    func rangeFetch(_ low: Double, _ high: Double) -> [RawItem] {
        items("WHERE ZSCORE BETWEEN ? AND ?") { statement in
            sqlite3_bind_double(statement, 1, low)
            sqlite3_bind_double(statement, 2, high)
        }
    }

    /// The rows grouped by flag, with the count, sum and average of their scores (the group-by workload).
    func groupByFlag() -> [(flag: Bool, count: Int64, sum: Double, average: Double)] {
        let statement = prepare("SELECT ZFLAG, COUNT(ZSCORE), SUM(ZSCORE), AVG(ZSCORE) FROM ZITEM GROUP BY ZFLAG")
        var result: [(flag: Bool, count: Int64, sum: Double, average: Double)] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append((sqlite3_column_int64(statement, 0) != 0, sqlite3_column_int64(statement, 1),
                           sqlite3_column_double(statement, 2), sqlite3_column_double(statement, 3)))
        }
        sqlite3_finalize(statement)
        return result
    }

    /// Reads every row, changes two fields of each, writes them back one row at a time (as an ORM does).
    func editAll() {
        let items = self.items()
        execute("BEGIN")
        let statement = prepare("UPDATE ZITEM SET Z_OPT = Z_OPT + 1, ZSCORE = ?, ZNAME = ? WHERE Z_PK = ?")
        for item in items {
            item.score += 1
            item.name += "!"
            sqlite3_bind_double(statement, 1, item.score)
            sqlite3_bind_text(statement, 2, item.name, -1, Self.transient)
            sqlite3_bind_int64(statement, 3, item.primaryKey)
            precondition(sqlite3_step(statement) == SQLITE_DONE)
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        execute("COMMIT")
    }

    /// Reads every row, then deletes them one row at a time.
    func deleteAll() {
        let items = self.items()
        execute("BEGIN")
        let statement = prepare("DELETE FROM ZITEM WHERE Z_PK = ?")
        for item in items {
            sqlite3_bind_int64(statement, 1, item.primaryKey)
            precondition(sqlite3_step(statement) == SQLITE_DONE)
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        execute("COMMIT")
    }

    func batchUpdate() { execute("UPDATE ZITEM SET Z_OPT = Z_OPT + 1, ZFLAG = 1") }
    func batchDelete() { execute("DELETE FROM ZITEM") }

    // MARK: To-many traversal

    func insertFamilies(parents: Int, children: Int) {
        execute("BEGIN")
        let parent = prepare("INSERT INTO ZPARENT (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, 2, 1, ?)")
        for index in 0..<parents {
            sqlite3_bind_int64(parent, 1, Int64(index + 1))
            sqlite3_bind_text(parent, 2, "parent \(index)", -1, Self.transient)
            precondition(sqlite3_step(parent) == SQLITE_DONE)
            sqlite3_reset(parent)
        }
        sqlite3_finalize(parent)
        let child = prepare("INSERT INTO ZCHILD (Z_PK, Z_ENT, Z_OPT, ZPARENT, ZVALUE, ZNAME) VALUES (?, 3, 1, ?, ?, ?)")
        for index in 0..<children {
            sqlite3_bind_int64(child, 1, Int64(index + 1))
            sqlite3_bind_int64(child, 2, Int64(index % parents + 1))
            sqlite3_bind_double(child, 3, Double(index))
            sqlite3_bind_text(child, 4, "child \(index)", -1, Self.transient)
            precondition(sqlite3_step(child) == SQLITE_DONE)
            sqlite3_reset(child)
        }
        sqlite3_finalize(child)
        execute("COMMIT")
    }

    /// Parents, then all children in one query grouped by parent; returns the sum of the children's values.
    func traverse() -> Double {
        final class Parent {
            let key: Int64
            let name: String
            var children: [Child] = []
            init(key: Int64, name: String) { self.key = key; self.name = name }
        }
        // One class instance per row, children included (the baseline's rule: tuples would skip an allocation the
        // other implementations make for every child).
        final class Child {
            let value: Double
            let name: String
            init(value: Double, name: String) { self.value = value; self.name = name }
        }
        var parents: [Int64: Parent] = [:]
        let statement = prepare("SELECT Z_PK, ZNAME FROM ZPARENT")
        while sqlite3_step(statement) == SQLITE_ROW {
            let key = sqlite3_column_int64(statement, 0)
            parents[key] = Parent(key: key, name: String(cString: sqlite3_column_text(statement, 1)))
        }
        sqlite3_finalize(statement)
        let children = prepare("SELECT ZPARENT, ZVALUE, ZNAME FROM ZCHILD")
        while sqlite3_step(children) == SQLITE_ROW {
            parents[sqlite3_column_int64(children, 0)]?.children.append(Child(value: sqlite3_column_double(children, 1), name: String(cString: sqlite3_column_text(children, 2))))
        }
        sqlite3_finalize(children)
        return parents.values.reduce(0) { $0 + $1.children.reduce(0) { $0 + $1.value } }
    }
}
