import Foundation
import Testing

@testable import OpenCoreData

// Persistent history on disk: Apple's ATRANSACTION / ACHANGE / ATRANSACTIONSTRING tables (store-format.md §7), checked
// with the SQLite C API, and the rows a context's saves leave in them.

@Suite("Persistent history: schema and rows", .timeLimit(.minutes(1)))
struct HistorySchemaTests {
    /// store-format.md §7, in order (tombstone columns, our addition, come after Apple's columns).
    static let changeColumns = ["Z_PK", "Z_ENT", "Z_OPT", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID", "ZCOLUMNS"]
    static let transactionColumns = ["Z_PK", "Z_ENT", "Z_OPT", "ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS", "ZTIMESTAMP",
                                     "ZAUTHOR", "ZBUNDLEID", "ZCONTEXTNAME", "ZPROCESSID", "ZQUERYGEN"]
    static let stringColumns = ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"]

    @Test("tracking creates Apple's history tables, indexes and Z_PRIMARYKEY rows")
    func tables() throws {
        let stack = try HistoryStack()
        let url = stack.url
        #expect(try RawSQL.columns(url, "ATRANSACTIONSTRING") == Self.stringColumns)
        #expect(try RawSQL.columns(url, "ATRANSACTION") == Self.transactionColumns)
        let change = try RawSQL.columns(url, "ACHANGE")
        #expect(Array(change.prefix(8)) == Self.changeColumns)
        // Note.remoteID and Folder.name preserve their values: one tombstone column suffices for both entities.
        #expect(Array(change.dropFirst(8)) == ["ZTOMBSTONE0"])
        let types = try RawSQL.rows(url, "PRAGMA table_info(ATRANSACTION)").map { "\($0[1].string ?? "")=\($0[2].string ?? "")" }
        #expect(types.contains("ZTIMESTAMP=FLOAT") && types.contains("ZQUERYGEN=BLOB") && types.contains("ZAUTHORTS=INTEGER") && types.contains("ZAUTHOR=VARCHAR"))
        let indexes = Set(try RawSQL.rows(url, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('ACHANGE','ATRANSACTION','ATRANSACTIONSTRING')").compactMap { $0[0].string })
        #expect(indexes.isSuperset(of: ["ACHANGE_ZTRANSACTIONID_INDEX", "ATRANSACTION_ZAUTHORTS_INDEX", "ATRANSACTION_ZBUNDLEIDTS_INDEX",
                                        "ATRANSACTION_ZCONTEXTNAMETS_INDEX", "ATRANSACTION_ZPROCESSIDTS_INDEX", "Z_TRANSACTION_TransactionAuthorIndex",
                                        "Z_TRANSACTION_TransactionTimestampIndex", "Z_TRANSACTIONSTRING_UNIQUE_NAME"]))
        let unique = try RawSQL.value(url, "SELECT sql FROM sqlite_master WHERE name = 'Z_TRANSACTIONSTRING_UNIQUE_NAME'")?.string ?? ""
        #expect(unique.uppercased().hasPrefix("CREATE UNIQUE INDEX"))
        let keys = try RawSQL.rows(url, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT >= 16000 ORDER BY Z_ENT")
        #expect(keys == [[.integer(16001), .text("CHANGE"), .integer(0)], [.integer(16002), .text("TRANSACTION"), .integer(0)],
                         [.integer(16003), .text("TRANSACTIONSTRING"), .integer(0)]])
        // The model's own entities keep their numbers below 16000.
        #expect(try RawSQL.rows(url, "SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT").compactMap { $0[0].string } == ["Folder", "Note"])
    }

    @Test("a store opened without tracking has no history tables and no history rows")
    func noTracking() throws {
        let stack = try HistoryStack(options: nil)
        let context = stack.context()
        try context.performAndWait {
            context.insertNote("a")
            try context.save()
        }
        #expect(try RawSQL.value(stack.url, "SELECT count(*) FROM sqlite_master WHERE name IN ('ACHANGE','ATRANSACTION','ATRANSACTIONSTRING')") == .integer(0))
        #expect(try RawSQL.value(stack.url, "SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT >= 16000") == .integer(0))
    }

    @Test("inserts, updates and deletes leave one transaction each, with Apple's change types, entity numbers and strings")
    func rows() throws {
        let stack = try HistoryStack()
        let url = stack.url
        let context = stack.context(name: "editor", author: "alice")
        let before = Date().timeIntervalSinceReferenceDate
        let (a, b) = try context.performAndWait {
            let a = context.insertNote("a", remoteID: "r-a"), b = context.insertNote("b")
            try context.save()
            b.setValue("B", forKey: "title")
            try context.save()
            context.delete(a)
            try context.save()
            return (a.objectID, b.objectID)
        }
        let after = Date().timeIntervalSinceReferenceDate
        let noteEntity = try #require(try RawSQL.value(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'")?.int)
        let bKey = try #require(try RawSQL.value(url, "SELECT Z_PK FROM ZNOTE WHERE ZTITLE = 'B'")?.int)
        let aKey = try #require(primaryKey(a))
        #expect(primaryKey(b) == bKey)
        #expect(aKey != bKey)

        let transactions = try RawSQL.rows(url, "SELECT t.Z_PK, t.Z_ENT, t.Z_OPT, a.ZNAME, c.ZNAME, t.ZTIMESTAMP, t.ZAUTHOR, t.ZCONTEXTNAME FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS ORDER BY t.Z_PK")
        #expect(transactions.count == 3)
        for row in transactions {
            #expect(row[1] == .integer(16002))
            #expect(row[2] == .null)   // history rows leave Z_OPT NULL
            #expect(row[3] == .text("alice"))
            #expect(row[4] == .text("editor"))
            let timestamp = try #require(row[5].double)
            #expect(timestamp >= before - 0.001 && timestamp <= after + 0.001)
            #expect(row[6] == .null && row[7] == .null)   // Apple leaves the plain text columns NULL
        }
        let changes = try RawSQL.rows(url, "SELECT Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, Z_OPT FROM ACHANGE ORDER BY Z_PK")
        let t = transactions.compactMap { $0[0].int }
        #expect(changes.count == 4)
        let expected: [[RawSQL.Value]] = [
            [.integer(16001), .integer(0), .integer(noteEntity), .integer(min(aKey, bKey)), .integer(t[0]), .null],
            [.integer(16001), .integer(0), .integer(noteEntity), .integer(max(aKey, bKey)), .integer(t[0]), .null],
            [.integer(16001), .integer(1), .integer(noteEntity), .integer(bKey), .integer(t[1]), .null],
            [.integer(16001), .integer(2), .integer(noteEntity), .integer(aKey), .integer(t[2]), .null],
        ]
        // The two inserts of the first save may come in either order.
        #expect(Set(changes.prefix(2).map(\.description)) == Set(expected.prefix(2).map(\.description)))
        #expect(Array(changes.dropFirst(2)) == Array(expected.dropFirst(2)))
        // Strings are interned once; the Z_PRIMARYKEY counters follow the rows.
        #expect(try RawSQL.value(url, "SELECT count(*) FROM ATRANSACTIONSTRING WHERE ZNAME = 'alice'") == .integer(1))
        #expect(try RawSQL.value(url, "SELECT count(DISTINCT ZNAME) = count(*) FROM ATRANSACTIONSTRING") == .integer(1))
        #expect(try RawSQL.value(url, "SELECT Z_ENT FROM ATRANSACTIONSTRING LIMIT 1") == .integer(16003))
        #expect(try RawSQL.value(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001") == .integer(4))
        #expect(try RawSQL.value(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002") == .integer(3))
        #expect(try RawSQL.value(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16003") == RawSQL.value(url, "SELECT count(*) FROM ATRANSACTIONSTRING"))

        // The same history through the API.
        let history = try context.performAndWait { try context.transactions(after: nil) }
        #expect(history.map(\.author) == ["alice", "alice", "alice"])
        #expect(history.map(\.contextName) == ["editor", "editor", "editor"])
        #expect(history.map(\.transactionNumber) == t)
        #expect(history.map { $0.timestamp.timeIntervalSinceReferenceDate } == transactions.compactMap { $0[5].double })
        #expect(history.map { $0.changes?.map(\.changeType) ?? [] } == [[.insert, .insert], [.update], [.delete]])
        #expect(Set(history[0].changes?.map(\.changedObjectID) ?? []) == [a, b])
        #expect(history[1].changes?.first?.changedObjectID == b)
        #expect(history[2].changes?.first?.changedObjectID == a)
        #expect(history[2].changes?.first?.transaction?.transactionNumber == t[2])
        #expect(history.allSatisfy { $0.storeID == stack.store.identifier && !$0.processID.isEmpty && !$0.bundleID.isEmpty })
        #expect(history[0].processID == ProcessInfo.processInfo.processName)
    }

    @Test("a save with no author or name records NULL string keys; one that changes nothing records no transaction")
    func anonymousAndEmpty() throws {
        let stack = try HistoryStack()
        let context = stack.context()
        try context.performAndWait {
            context.insertNote("a")
            try context.save()
            try context.save()   // nothing to save
        }
        let rows = try RawSQL.rows(stack.url, "SELECT ZAUTHORTS, ZCONTEXTNAMETS, ZBUNDLEIDTS IS NOT NULL, ZPROCESSIDTS IS NOT NULL FROM ATRANSACTION")
        #expect(rows == [[.null, .null, .integer(1), .integer(1)]])
        let history = try context.performAndWait { try context.transactions(after: nil) }
        #expect(history.count == 1)
        #expect(history.first?.author == nil && history.first?.contextName == nil)
    }

    @Test("Apple-written history (Passepartout, NSPersistentCloudKitContainer) reads through the API as raw SQL says",
          .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func corpusHistory() throws {
        let url = try Corpus.storeCopy("passepartoutvpn__passepartout__Profiles.sqlite")
        let model = try Corpus.model("passepartoutvpn__passepartout__ProfilesLegacyV2__Profiles.xml")
        let raw = try RawSQL.rows(url, """
            SELECT t.Z_PK, t.ZTIMESTAMP, a.ZNAME, b.ZNAME, c.ZNAME, p.ZNAME FROM ATRANSACTION t \
            LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS \
            LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS ORDER BY t.Z_PK
            """)
        let rawChanges = try RawSQL.rows(url, "SELECT c.ZTRANSACTIONID, c.ZCHANGETYPE, c.ZENTITYPK, e.Z_NAME FROM ACHANGE c JOIN Z_PRIMARYKEY e ON e.Z_ENT = c.ZENTITY ORDER BY c.Z_PK")
        #expect(!raw.isEmpty && !rawChanges.isEmpty)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let transactions = try context.performAndWait { try context.transactions(after: nil) }
        #expect(transactions.map(\.transactionNumber) == raw.compactMap { $0[0].int })
        #expect(transactions.map { $0.timestamp.timeIntervalSinceReferenceDate } == raw.compactMap { $0[1].double })
        #expect(transactions.map(\.author) == raw.map { $0[2].string })
        #expect(transactions.map(\.bundleID) == raw.map { $0[3].string ?? "" })
        #expect(transactions.map(\.contextName) == raw.map { $0[4].string })
        #expect(transactions.map(\.processID) == raw.map { $0[5].string ?? "" })
        let changes = transactions.flatMap { transaction in (transaction.changes ?? []).map { (transaction.transactionNumber, $0) } }
        #expect(changes.count == rawChanges.count)
        for ((number, change), row) in zip(changes, rawChanges) {
            #expect(number == row[0].int)
            #expect(Int64(change.changeType.rawValue) == row[1].int)
            #expect(primaryKey(change.changedObjectID) == row[2].int)
            #expect(change.changedObjectID.entity.name == row[3].string)
        }
        // The token of the last transaction covers the store; nothing comes after it.
        let token = coordinator.currentPersistentHistoryToken(fromStores: nil)
        #expect(token == transactions.last?.token)
        #expect(try context.performAndWait { try context.transactions(after: token) }.isEmpty)
    }
}
