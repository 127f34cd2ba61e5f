import Testing

@testable import OpenCoreData

/// The SQL the SQLite store runs for batch requests (captured from the SQL debug log, level 2 so bound values are
/// logged apart from the statements) and the rows it leaves, read back with plain SQL.
@Suite struct BatchSQLTests {
    /// An SQLite stack on the batch model whose store logs its SQL into the returned capture.
    static func stack() throws -> (BatchStack, SQLiteStore, CapturedLog) {
        let stack = try BatchStack(.sqlite)
        let store = try #require(stack.store as? SQLiteStore)
        let (logger, log) = CapturingLogHandler.logger()
        store.connection.logger = logger
        store.connection.sqlDebugLevel = 2
        return (stack, store, log)
    }

    /// The statements logged (without the `sql: ` prefix).
    static func statements(_ log: CapturedLog) -> [String] {
        log.messages.filter { $0.hasPrefix("sql: ") }.map { String($0.dropFirst(5)) }
    }

    /// Rows of a query, read on the store's connection under the coordinator's lock.
    static func rows(_ stack: BatchStack, _ store: SQLiteStore, _ sql: String) throws -> [[SQLiteValue]] {
        try stack.coordinator.withLock { try store.connection.fetchAll(sql) }
    }

    @Test func batchInsertIsOnePreparedInsertAndAPrimaryKeyUpdate() throws {
        let (stack, store, log) = try Self.stack()
        try stack.seedItems(2)
        log.removeAll()
        let hostile = "O'Brien'); DROP TABLE ZITEM; --"
        try stack.run { context in
            _ = try context.execute(NSBatchInsertRequest(entityName: "Item", objects: [["name": hostile, "rating": 1], ["name": "b", "price": 2.5]]))
        }
        let statements = Self.statements(log)
        let insert = "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZRATING, ZPRICE, ZFLAG, ZSTAMP, ZPAYLOAD) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)"
        #expect(statements == ["BEGIN IMMEDIATE TRANSACTION", "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", "SELECT MAX(Z_PK) FROM ZITEM", insert, insert,
                               "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", "COMMIT TRANSACTION"])
        #expect(!statements.contains { $0.contains("O'Brien") }, "values are bound, never spliced")
        #expect(log.messages.contains { $0.hasPrefix("details: SQLite bind") && $0.contains("O''Brien") })

        let stored = try Self.rows(stack, store, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZRATING, ZPRICE FROM ZITEM ORDER BY Z_PK")
        #expect(stored.count == 4)
        #expect(stored[2] == [.integer(3), .integer(3), .integer(1), .text(hostile), .integer(1), .null])
        #expect(stored[3] == [.integer(4), .integer(3), .integer(1), .text("b"), .integer(7), .real(2.5)])
        let max = try Self.rows(stack, store, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")
        #expect(max == [[.integer(4)]])
    }

    @Test func upsertsUpdateTheStoredRowInPlace() throws {
        let (stack, store, log) = try Self.stack()
        try stack.run { context in
            _ = try context.execute(NSBatchInsertRequest(entityName: "Product", objects: [["code": "A", "name": "old"]]))
            log.removeAll()
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            _ = try context.execute(NSBatchInsertRequest(entityName: "Product", objects: [["code": "A", "name": "new", "stock": 3]]))
        }
        let statements = Self.statements(log)
        #expect(statements.contains { $0.hasPrefix("SELECT Z_PK, Z_ENT FROM ZPRODUCT WHERE ZCODE = ?") })
        #expect(statements.contains { $0.hasPrefix("UPDATE ZPRODUCT SET Z_OPT = IFNULL(Z_OPT, 0) + 1, ") && $0.hasSuffix(" WHERE Z_PK = ?") })
        #expect(!statements.contains("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?"), "no row was added")
        #expect(try Self.rows(stack, store, "SELECT Z_PK, Z_OPT, ZCODE, ZNAME, ZSTOCK FROM ZPRODUCT") == [[.integer(1), .integer(2), .text("A"), .text("new"), .integer(3)]])
    }

    @Test func batchUpdateUpdatesTheSelectedRowsInOneStatement() throws {
        let (stack, store, log) = try Self.stack()
        try stack.seedItems(1_200)
        log.removeAll()
        let updatedIDs = try stack.run { context in
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.predicate = NSPredicate(format: "price >= %d", 100)
            request.propertiesToUpdate = ["rating": NSExpression(format: "rating + 10"), "flag": true]
            request.resultType = .updatedObjectIDsResultType
            return try #require((try context.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
        }
        let statements = Self.statements(log)
        let updates = statements.filter { $0.contains("UPDATE ZITEM SET ") }
        #expect(updates.count == 1, "one statement for 1,100 rows")
        let update = try #require(updates.first)
        #expect(update.hasPrefix("WITH matched(pk) AS (SELECT t0.Z_PK FROM ZITEM t0 WHERE "))
        #expect(update.contains("t0.ZPRICE >= ?1"))
        #expect(update.hasSuffix(") UPDATE ZITEM SET ZFLAG = ?, ZRATING = (ZRATING + ?), Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK IN matched RETURNING Z_PK, Z_ENT"))
        #expect(!statements.contains { $0.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT FROM ZITEM") }, "the keys come back from the UPDATE itself")
        #expect(updatedIDs.count == 1_100)
        #expect(Set(updatedIDs.compactMap { Int(($0.uriRepresentation().lastPathComponent).dropFirst()) }) == Set(101...1_200))

        let rows = try Self.rows(stack, store, "SELECT Z_PK, Z_OPT, ZRATING, ZFLAG FROM ZITEM ORDER BY Z_PK")
        for (index, row) in rows.enumerated() {
            let updated = index >= 100
            #expect(row == [.integer(Int64(index + 1)), .integer(updated ? 2 : 1), .integer(Int64(index % 10 + (updated ? 10 : 0))), updated ? .integer(1) : .null])
        }
    }

    @Test func expressionsSQLDoesNotComputeAreEvaluatedRowByRow() throws {
        let (stack, store, log) = try Self.stack()
        try stack.seedItems(3)
        log.removeAll()
        try stack.run { context in
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.propertiesToUpdate = ["name": NSExpression(forFunction: "uppercase:", arguments: [NSExpression(forKeyPath: "name")]), "rating": 1]
            _ = try context.execute(request)
        }
        let updates = Self.statements(log).filter { $0.hasPrefix("UPDATE ZITEM") }
        #expect(updates == Array(repeating: "UPDATE ZITEM SET ZNAME = ?, ZRATING = ?, Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK = ?", count: 3))
        #expect(try Self.rows(stack, store, "SELECT ZNAME, ZRATING, Z_OPT FROM ZITEM ORDER BY Z_PK") == (0..<3).map {
            [.text(String(format: "ITEM-%04d", $0)), .integer(1), .integer(2)]
        })
    }

    @Test func batchDeleteAppliesTheRulesWithSetWiseSQL() throws {
        let (stack, store, log) = try Self.stack()
        let library = try BatchDeleteTests.library(stack)
        log.removeAll()
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(objectIDs: [library["a1"]])) }
        let join = try #require(store.schema.joinTables.first { $0.relationship.name == "tags" || $0.relationship.name == "books" })
        let statements = Self.statements(log)
        #expect(statements.contains("DELETE FROM ZAUTHOR WHERE Z_PK IN (?)"))
        #expect(statements.contains("DELETE FROM ZBOOK WHERE Z_PK IN (?, ?)"), "the cascade reached both books")
        #expect(statements.contains("SELECT Z_PK, Z_ENT FROM ZBOOK WHERE ZAUTHOR IN (?)"), "one-to-many cascade through the inverse key")
        #expect(statements.contains("UPDATE ZPUBLISHER SET Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK IN (?)"), "the publisher lost a book")
        #expect(statements.contains("UPDATE ZTAG SET Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK IN (?, ?)"), "both tags lost books")
        #expect(statements.contains { $0.hasPrefix("DELETE FROM \(join.name) WHERE ") })

        #expect(try Self.rows(stack, store, "SELECT ZNAME FROM ZAUTHOR") == [[.text("a2")]])
        #expect(try Self.rows(stack, store, "SELECT ZTITLE FROM ZBOOK") == [[.text("b3")]])
        #expect(try Self.rows(stack, store, "SELECT COUNT(*) FROM \(join.name)") == [[.integer(1)]], "only b3–t2 is left")
        #expect(try Self.rows(stack, store, "SELECT ZNAME, Z_OPT FROM ZTAG ORDER BY ZNAME") == [[.text("t1"), .integer(2)], [.text("t2"), .integer(2)]])
        #expect(try Self.rows(stack, store, "SELECT Z_OPT FROM ZPUBLISHER") == [[.integer(2)]])
    }

    @Test func nullifyClearsKeysOfSurvivingRows() throws {
        let (stack, store, log) = try Self.stack()
        let library = try BatchDeleteTests.library(stack)
        log.removeAll()
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(objectIDs: [library["p1"]])) }
        #expect(Self.statements(log).contains("UPDATE ZBOOK SET ZPUBLISHER = NULL, Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK IN (?, ?)"))
        #expect(try Self.rows(stack, store, "SELECT ZTITLE, ZPUBLISHER, Z_OPT FROM ZBOOK ORDER BY ZTITLE") == [
            [.text("b1"), .null, .integer(2)], [.text("b2"), .null, .integer(1)], [.text("b3"), .null, .integer(2)],
        ])
    }

    @Test func largeDeletesRunInChunks() throws {
        let (stack, store, log) = try Self.stack()
        try stack.seedItems(1_234)
        log.removeAll()
        let count = try stack.run { context in
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Item"))
            request.resultType = .resultTypeCount
            return batchNumber((try context.execute(request) as? NSBatchDeleteResult)?.result)
        }
        #expect(count == 1_234)
        let deletes = Self.statements(log).filter { $0.hasPrefix("DELETE FROM ZITEM WHERE Z_PK IN (") }
        #expect(deletes.map { $0.filter { $0 == "?" }.count } == [500, 500, 234])
        #expect(Self.statements(log).contains("SELECT t0.Z_PK, t0.Z_ENT FROM ZITEM t0 ORDER BY t0.Z_PK"))
        #expect(try Self.rows(stack, store, "SELECT COUNT(*) FROM ZITEM") == [[.integer(0)]])
    }

    @Test func aFailedRequestLeavesTheStoreUntouched() throws {
        let (stack, store, _) = try Self.stack()
        try stack.run { context in
            _ = try context.execute(NSBatchInsertRequest(entityName: "Product", objects: [["code": "A"], ["code": "B"]]))
            let failing = NSBatchInsertRequest(entityName: "Product", objects: [["code": "C"], ["code": "A"]])
            #expect(caughtError { try context.execute(failing) }?.code == NSManagedObjectConstraintMergeError)
        }
        #expect(try Self.rows(stack, store, "SELECT ZCODE FROM ZPRODUCT ORDER BY ZCODE") == [[.text("A")], [.text("B")]])
        #expect(try Self.rows(stack, store, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Product'") == [[.integer(2)]])
    }
}
