import Testing

@testable import OpenCoreData

/// Predicates never splice values into SQL: injection payloads given as values (`%@`), in `IN` lists, as
/// `LIKE`/`CONTAINS`/`BEGINSWITH`/`ENDSWITH` patterns, as batch update values and in batch delete predicates select
/// exactly what the in-memory evaluation of the same predicate selects, the tables survive, and the SQL debug log
/// (level 2: statements and bound values logged apart) shows the payload only among the bound values, never in a
/// statement. Hostile `%K` key paths, entity names and batch-update keys are refused with an `NSError` before any SQL.
@Suite struct SQLInjectionTests {
    /// Values an attacker would put in a search field.
    static let payloads: [String] = [
        "'; DROP TABLE ZITEM; --",
        "\" OR 1=1 --",
        "' OR '1'='1",
        "x') OR ('a'='a",
        "Robert'); DELETE FROM Z_PRIMARYKEY; --",
        "nul\u{0}byte'; DROP TABLE ZITEM; --",
        "%' OR ZNAME LIKE '%",
        "_%\\' ESCAPE '\\",
        "Ünïcødé ‮'; DROP TABLE ZBOOK; -- 😀 ﷽",
        "*?[]{}()^$|.+",
        String(repeating: "'; DROP TABLE ZITEM; -- ", count: 1_000),  // ~25 KB
    ]

    /// An SQLite stack on the batch model, its store, and the SQL debug log at level 2.
    static func stack() throws -> (BatchStack, SQLiteStore, CapturedLog) {
        let stack = try BatchStack(.sqlite)
        let store = try #require(stack.store as? SQLiteStore)
        let (logger, log) = CapturingLogHandler.logger()
        store.connection.logger = logger
        store.connection.sqlDebugLevel = 2
        return (stack, store, log)
    }

    /// Items named by every payload, by a prefix and a suffix of each, and a few plain names.
    static func seed(_ stack: BatchStack) throws {
        try stack.run { context in
            var names = ["alpha", "beta", "O'Brien", "1=1"]
            for payload in payloads {
                names += [payload, "prefix " + payload, payload + " suffix"]
                if payload.uppercased() != payload { names.append(payload.uppercased()) }
            }
            for (index, name) in names.enumerated() {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(name, forKey: "name")
                item.setValue(Int32(index), forKey: "rating")
            }
            try context.save()
        }
    }

    /// The statements logged (without the `sql: ` prefix).
    static func statements(_ log: CapturedLog) -> [String] {
        log.messages.filter { $0.hasPrefix("sql: ") }.map { String($0.dropFirst(5)) }
    }

    /// The distinctive part of a payload to look for in SQL text (NUL bytes cut it short).
    static func needle(_ payload: String) -> String {
        String(payload.prefix { $0 != "\u{0}" }.prefix(24))
    }

    @Test func payloadsAsValuesSelectExactlyWhatTheEvaluatorSelectsAndAreBound() throws {
        let (stack, store, log) = try Self.stack()
        try Self.seed(stack)
        var tried = 0
        try stack.run { context in
            let everything = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            let total = everything.count
            for payload in Self.payloads {
                let predicates: [NSPredicate] = [
                    NSPredicate(format: "name == %@", payload),
                    NSPredicate(format: "name != %@", payload),
                    NSPredicate(format: "name ==[c] %@", payload),
                    NSPredicate(format: "name IN %@", [payload, "alpha", payload.uppercased()]),
                    NSPredicate(format: "name LIKE %@", payload),
                    NSPredicate(format: "name LIKE[cd] %@", "*" + payload + "*"),
                    NSPredicate(format: "name CONTAINS %@", payload),
                    NSPredicate(format: "name CONTAINS[cd] %@", payload),
                    NSPredicate(format: "name BEGINSWITH %@", payload),
                    NSPredicate(format: "name ENDSWITH[c] %@", payload),
                    NSPredicate(format: "name > %@ AND name < %@", payload, payload + "\u{10FFFF}"),
                    NSPredicate(format: "name BEGINSWITH %@ OR name ENDSWITH %@", payload, payload),
                ]
                for predicate in predicates {
                    tried += 1
                    log.removeAll()
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                    request.predicate = predicate
                    let fetched = Set(try context.fetch(request).map(\.objectID))
                    let evaluated = Set(everything.filter { predicate.evaluate(with: $0) }.map(\.objectID))
                    #expect(fetched == evaluated, "\(predicate.predicateFormat.prefix(120)): the store and the evaluator disagree")
                    let sql = Self.statements(log)
                    #expect(sql.contains { $0.hasPrefix("SELECT") }, "the fetch ran SQL")
                    #expect(!sql.contains { $0.contains(Self.needle(payload)) }, "the payload was spliced into SQL: \(sql.first { $0.contains(Self.needle(payload)) }?.prefix(200) ?? "")")
                }
                #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == total, "the table survives")
            }
        }
        #expect(try BatchSQLTests.rows(stack, store, "SELECT count(*) FROM sqlite_master WHERE name IN ('ZITEM', 'ZBOOK', 'Z_PRIMARYKEY')") == [[.integer(3)]])
        print("Injection payloads: \(Self.payloads.count) payloads in \(tried) predicates, every one bound, 0 differences from the evaluator, tables intact")
    }

    @Test func payloadsInBatchUpdatesAndDeletesAreBound() throws {
        let (stack, store, log) = try Self.stack()
        try Self.seed(stack)
        let before = try BatchSQLTests.rows(stack, store, "SELECT count(*) FROM ZITEM")
        for (index, payload) in Self.payloads.enumerated() {
            log.removeAll()
            // A batch update whose predicate and new value are both payloads.
            let update = NSBatchUpdateRequest(entityName: "Item")
            update.predicate = NSPredicate(format: "name == %@", payload)
            update.propertiesToUpdate = ["name": "updated " + payload, "rating": 1_000 + index]
            update.resultType = .updatedObjectsCountResultType
            let updated = try stack.run { try #require((try $0.execute(update) as? NSBatchUpdateResult)?.result as? Int) }
            #expect(updated == 1, "exactly the row named by the payload")
            // A batch delete of the uppercased copy (a different row unless the payload has no letters).
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item"))
            delete.fetchRequest.predicate = NSPredicate(format: "name == %@ AND rating != %d", "prefix " + payload, 1_000 + index)
            delete.resultType = .resultTypeCount
            let deleted = try stack.run { try #require((try $0.execute(delete) as? NSBatchDeleteResult)?.result as? Int) }
            #expect(deleted == 1)
            let sql = Self.statements(log)
            #expect(!sql.contains { $0.contains(Self.needle(payload)) }, "payload #\(index) was spliced into SQL")
            let stored = try BatchSQLTests.rows(stack, store, "SELECT ZNAME FROM ZITEM WHERE ZRATING = \(1_000 + index)")
            #expect(stored == [[.text("updated " + payload)]], "payload #\(index) stored exactly, NUL bytes included")
        }
        let after = try BatchSQLTests.rows(stack, store, "SELECT count(*) FROM ZITEM")
        #expect(after == [[.integer((before.first?.first.flatMap { if case .integer(let n) = $0 { n } else { nil } } ?? 0) - Int64(Self.payloads.count))]])
    }

    @Test func hostileKeyPathsAndEntityNamesAreRefusedBeforeAnySQL() throws {
        let (stack, store, log) = try Self.stack()
        try Self.seed(stack)
        let keys = ["name; DROP TABLE ZITEM", "ZNAME", "Z_PK", "name'", "name\"", "name) OR (1=1", "rating.a.b.c", "name.length.x", "", "name.", "a..b",
                    "name\u{0}", "@count", "ZITEM.ZNAME"]
        var refused = 0
        try stack.run { context in
            for key in keys {
                log.removeAll()
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.predicate = NSPredicate(format: "%K == %@", key, "x")
                let error = #expect(throws: NSError.self, "key path \(key.debugDescription)") { try context.fetch(request) }
                #expect(error?.domain == NSCocoaErrorDomain, "\(String(describing: error))")
                // Every step of the key path is checked against the model before any SQL is built (also the steps
                // after an attribute, and an operator where no to-many relationship precedes it).
                #expect(Self.statements(log).isEmpty, "\(key.debugDescription) ran SQL: \(Self.statements(log))")
                if error != nil { refused += 1 }

                let sorted = NSFetchRequest<NSManagedObject>(entityName: "Item")
                sorted.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
                #expect(throws: NSError.self, "sort key \(key.debugDescription)") { try context.fetch(sorted) }

                let update = NSBatchUpdateRequest(entityName: "Item")
                update.propertiesToUpdate = [key: "x"]
                #expect(throws: NSError.self, "batch update key \(key.debugDescription)") { try context.execute(update) }
            }
            for entity in ["ZITEM", "Item; DROP TABLE ZITEM", "Item'", "", "Z_PRIMARYKEY", "NSManagedObject"] {
                log.removeAll()
                let error = #expect(throws: NSError.self, "entity \(entity.debugDescription)") {
                    try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
                }
                #expect(error?.domain == NSCocoaErrorDomain)
                #expect(!Self.statements(log).contains { $0.hasPrefix("SELECT") }, "entity \(entity.debugDescription) reached SQL")
                if error != nil { refused += 1 }
                let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: entity))
                #expect(throws: NSError.self, "batch delete of \(entity.debugDescription)") { try context.execute(delete) }
            }
        }
        #expect(try BatchSQLTests.rows(stack, store, "SELECT count(*) FROM sqlite_master WHERE name IN ('ZITEM', 'Z_PRIMARYKEY')") == [[.integer(2)]])
        print("Hostile key paths and entity names: \(keys.count + 6) tried, \(refused) refused with an error before any SQL ran; no key or name ever in SQL")
    }
}
