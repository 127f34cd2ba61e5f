import Foundation
import Testing

@testable import OpenCoreData

/// Fetch options on the SQLite store: `fetchBatchSize` and `relationshipKeyPathsForPrefetching` counted in SQL
/// statements (recorded through the SQL debug log), dictionary results with expressions, grouping and having
/// checked against hand-computed values, and asynchronous fetches.
@Suite("Fetch options: batching, prefetching, dictionaries, asynchronous fetches")
struct FetchOptionsTests {
    /// 3 shelves × 4 items each (prices 1…12), items tagged with 2 of 3 tags, on SQLite; the SQL it runs is
    /// recorded in `log` from the moment the data is saved.
    struct Stack {
        let context: NSManagedObjectContext
        let log: CapturedLog
        let store: SQLiteStore

        init() throws {
            (context, store) = try SQLiteTestStack.make(SQLiteFetchCompilerTests.model(), name: "options")
            try context.performAndWait { [context] in
                let tags = ["red", "green", "blue"].map { name -> NSManagedObject in
                    let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
                    tag.setValue(name, forKey: "name")
                    return tag
                }
                var price = 1.0
                for shelfName in ["A", "B", "C"] {
                    let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
                    shelf.setValue(shelfName, forKey: "name")
                    for index in 0..<4 {
                        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                        item.setValue("\(shelfName)\(index)", forKey: "name")
                        item.setValue(price, forKey: "price")
                        item.setValue(index, forKey: "qty")
                        item.setValue(shelf, forKey: "shelf")
                        item.setValue(NSSet(array: [tags[index % 3], tags[(index + 1) % 3]]), forKey: "tags")
                        price += 1
                    }
                }
                try context.save()
                context.reset()
            }
            store.persistentStoreCoordinator?.rowCache.removeAll()
            log = SQLiteTestStack.recordSQL(of: store, level: 1)
        }

        /// The SELECT statements that read rows, run since the last call (not the `MAX(Z_PK)` that sizes up a
        /// table before a prefetch chooses how to read it).
        func selects() -> [String] {
            defer { log.removeAll() }
            return log.messages.filter { $0.hasPrefix("sql: SELECT") && !$0.hasPrefix("sql: SELECT MAX(Z_PK)") }
        }
    }

    @Test("fetchBatchSize: faults, and one SELECT per batch when they fire")
    func batchedFaults() throws {
        let stack = try Stack()
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.fetchBatchSize = 5
            request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
            let items = try stack.context.fetch(request)
            #expect(items.count == 12)
            #expect(items.allSatisfy { $0.isFault })
            #expect(stack.selects().count == 1, "the fetch reads IDs only")
            #expect(items[0].value(forKey: "name") as? String == "A0")
            #expect(stack.selects().count == 1, "firing one fault loads its batch")
            #expect((1..<5).allSatisfy { !items[$0].isFault })
            #expect(items[5].isFault)
            _ = items[4].value(forKey: "price")
            #expect(stack.selects().isEmpty, "same batch: no query")
            _ = items[11].value(forKey: "price")
            #expect(stack.selects().count == 1)
            #expect(items.map { $0.value(forKey: "price") as? Double } == (1...12).map { Double($0) })
        }
    }

    @Test("relationshipKeyPathsForPrefetching: one SELECT per key path step, none when relationships are used")
    func prefetching() throws {
        let stack = try Stack()
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Shelf")
            request.relationshipKeyPathsForPrefetching = ["items", "items.tags"]
            let shelves = try stack.context.fetch(request)
            let statements = stack.selects()
            #expect(statements.count == 3, "shelves, their items, the items' tags: \(statements)")
            var names: [String] = []
            for shelf in shelves {
                for case let item as NSManagedObject in (shelf.value(forKey: "items") as? NSSet)?.allObjects ?? [] {
                    names.append(item.value(forKey: "name") as! String)
                    for case let tag as NSManagedObject in (item.value(forKey: "tags") as? NSSet)?.allObjects ?? [] { _ = tag.value(forKey: "name") }
                }
            }
            #expect(names.count == 12)
            #expect(stack.selects().isEmpty, "no query per shelf or item (no N+1)")

            // Without prefetching the same walk costs a query per relationship fault.
            stack.context.reset()
            stack.store.persistentStoreCoordinator?.rowCache.removeAll()
            let plain = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf"))
            for shelf in plain { _ = (shelf.value(forKey: "items") as? NSSet)?.count }
            #expect(stack.selects().count == 1 + 3)
        }
    }

    @Test("prefetching a to-one key path reads the destinations in one SELECT")
    func prefetchingToOne() throws {
        let stack = try Stack()
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.relationshipKeyPathsForPrefetching = ["shelf"]
            let items = try stack.context.fetch(request)
            #expect(stack.selects().count == 2)
            #expect(Set(items.compactMap { ($0.value(forKey: "shelf") as? NSManagedObject)?.value(forKey: "name") as? String }) == ["A", "B", "C"])
            #expect(stack.selects().isEmpty)
        }
    }

    static func expression(_ name: String, _ function: String, _ keyPath: String, _ type: NSAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        description.expressionResultType = type
        return description
    }

    @Test("dictionary results: properties, key paths, aggregates, group by, having, distinct")
    func dictionaries() throws {
        let stack = try Stack()
        try stack.context.performAndWait {
            // Per-row properties and a key path; to-one relationships come back as object IDs.
            let rows = NSFetchRequest<NSDictionary>(entityName: "Item")
            rows.resultType = .dictionaryResultType
            rows.propertiesToFetch = ["name", "shelf.name", "shelf"]
            rows.predicate = NSPredicate(format: "price < 3")
            rows.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
            let plain = try stack.context.fetch(rows)
            #expect(plain.count == 2)
            #expect(plain[0]["name"] as? String == "A0" && plain[0]["shelf.name"] as? String == "A")
            #expect(plain[0]["shelf"] is NSManagedObjectID)

            // Aggregates over every row: prices 1…12 → sum 78, average 6.5, min 1, max 12, 12 rows.
            let totals = NSFetchRequest<NSDictionary>(entityName: "Item")
            totals.resultType = .dictionaryResultType
            totals.propertiesToFetch = [
                Self.expression("sum", "sum:", "price", .doubleAttributeType), Self.expression("avg", "average:", "price", .doubleAttributeType),
                Self.expression("min", "min:", "price", .doubleAttributeType), Self.expression("max", "max:", "price", .doubleAttributeType),
                Self.expression("count", "count:", "price", .integer64AttributeType),
            ]
            let total = try #require(try stack.context.fetch(totals).first)
            #expect(total["sum"] as? Double == 78)
            #expect(total["avg"] as? Double == 6.5)
            #expect(total["min"] as? Double == 1 && total["max"] as? Double == 12)
            #expect(total["count"] as? Int == 12)

            // Grouped by shelf: A 1+2+3+4 = 10, B 26, C 42; having sum > 20 keeps B and C.
            let grouped = NSFetchRequest<NSDictionary>(entityName: "Item")
            grouped.resultType = .dictionaryResultType
            grouped.propertiesToGroupBy = ["shelf.name"]
            grouped.propertiesToFetch = ["shelf.name", Self.expression("total", "sum:", "price", .doubleAttributeType)]
            grouped.sortDescriptors = [NSSortDescriptor(key: "shelf.name", ascending: true)]
            let groups = try stack.context.fetch(grouped)
            #expect(groups.map { $0["shelf.name"] as? String } == ["A", "B", "C"])
            #expect(groups.map { $0["total"] as? Double } == [10, 26, 42])
            grouped.havingPredicate = NSPredicate(format: "total > 20")
            #expect(try stack.context.fetch(grouped).map { $0["shelf.name"] as? String } == ["B", "C"])

            // Distinct quantities (0…3 on every shelf).
            let distinct = NSFetchRequest<NSDictionary>(entityName: "Item")
            distinct.resultType = .dictionaryResultType
            distinct.propertiesToFetch = ["qty"]
            distinct.returnsDistinctResults = true
            #expect(try stack.context.fetch(distinct).count == 4)

            // Grouping by a property that is not fetched nor aggregated is refused with an error.
            let bad = NSFetchRequest<NSDictionary>(entityName: "Item")
            bad.resultType = .dictionaryResultType
            bad.propertiesToGroupBy = ["shelf.name"]
            bad.propertiesToFetch = ["name"]
            #expect(throws: (any Error).self) { try stack.context.fetch(bad) }
        }
    }

    @Test("count(for:) asks the store for a COUNT and makes no objects, unless unsaved changes matter")
    func countMakesNoObjects() throws {
        let stack = try Stack()
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "price > 6")
            let matching = try stack.context.count(for: request)
            #expect(matching == 6)
            #expect(stack.context.registeredObjects.isEmpty)
            #expect(stack.selects().contains { $0.contains("SELECT COUNT(*)") })
            request.fetchOffset = 2
            request.fetchLimit = 3
            let limited = try stack.context.count(for: request)
            #expect(limited == 3)
            // An unsaved change that affects the answer is counted too.
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context)
            item.setValue(100.0, forKey: "price")
            request.fetchOffset = 0
            request.fetchLimit = 0
            let withPending = try stack.context.count(for: request)
            #expect(withPending == 7)
        }
    }

    @Test("an NSFetchRequestExpression in a predicate is the fetch's result (objects, or a count)")
    func fetchRequestExpression() throws {
        let stack = try Stack()
        try stack.context.performAndWait {
            let red = NSFetchRequest<NSFetchRequestResult>(entityName: "Tag")
            red.predicate = NSPredicate(format: "name == 'red'")
            let expression = NSFetchRequestExpression.expression(forFetch: NSExpression(forConstantValue: red),
                                                                 context: NSExpression(forConstantValue: stack.context), countOnly: false)
            let viaExpression = NSFetchRequest<NSManagedObject>(entityName: "Item")
            viaExpression.predicate = NSPredicate(format: "ANY tags IN %@", expression)
            let direct = NSFetchRequest<NSManagedObject>(entityName: "Item")
            direct.predicate = NSPredicate(format: "ANY tags.name == 'red'")
            let expected = Set(try stack.context.fetch(direct).map(\.objectID))
            #expect(expected.count == 9, "items 0, 2 and 3 of each shelf carry red")
            #expect(Set(try stack.context.fetch(viaExpression).map(\.objectID)) == expected)

            let count = NSFetchRequestExpression.expression(forFetch: NSExpression(forConstantValue: red),
                                                            context: NSExpression(forConstantValue: stack.context), countOnly: true)
            #expect(count.expressionValue(with: nil, context: nil) as? Int == 1)
        }
    }

    @Test("asynchronous fetches complete on the context's queue with progress, and can be cancelled")
    func asynchronousFetch() async throws {
        let stack = try Stack()
        let context = stack.context
        let counts = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Int, Int64), Error>) in
            context.perform {
                let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Item")) { result in
                    continuation.resume(returning: (result.finalResult?.count ?? -1, result.progress?.completedUnitCount ?? -1))
                }
                do {
                    let pending = try context.execute(request) as? NSAsynchronousFetchResult<NSManagedObject>
                    #expect(pending?.finalResult == nil, "not run yet")
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        #expect(counts.0 == 12)
        #expect(counts.1 == 12)

        let cancelled = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, Error>) in
            context.perform {
                let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Item")) { result in
                    continuation.resume(returning: (result.operationError as NSError?)?.code ?? 0)
                }
                do {
                    (try context.execute(request) as? NSPersistentStoreAsynchronousResult)?.cancel()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        #expect(cancelled == NSUserCancelledError)
    }
}
