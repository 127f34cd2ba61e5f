import Testing

@testable import OpenCoreData

/// Batch requests whose caller needs no object IDs (status or count results) run as the one `UPDATE`/`DELETE` an
/// application would write, without listing the rows; the coordinator's row cache then forgets the entity's
/// hierarchy, so no context reads a stale row afterwards.
@Suite struct BatchUnlistedSQLTests {
    private func update(_ stack: BatchStack, _ entityName: String, _ predicate: NSPredicate?, _ properties: [String: Any],
                        _ resultType: NSBatchUpdateRequestResultType) throws -> Any? {
        try stack.run { context in
            let request = NSBatchUpdateRequest(entityName: entityName)
            request.predicate = predicate
            request.propertiesToUpdate = properties
            request.resultType = resultType
            return (try context.execute(request) as? NSBatchUpdateResult)?.result
        }
    }

    @Test func statusOnlyUpdateIsOneUpdateOfTheTableWithoutReturning() throws {
        let (stack, store, log) = try BatchSQLTests.stack()
        try stack.seedItems(1_200)
        log.removeAll()
        let result = try update(stack, "Item", NSPredicate(format: "price >= %d", 100), ["rating": NSExpression(format: "rating + 10"), "flag": true], .statusOnlyResultType)
        #expect(batchNumber(result) == 1)
        let updates = BatchSQLTests.statements(log).filter { $0.contains("UPDATE ZITEM") }
        #expect(updates == ["UPDATE ZITEM AS t0 SET ZFLAG = ?2, ZRATING = (ZRATING + ?3), Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE t0.ZPRICE >= ?1"])
        #expect(!BatchSQLTests.statements(log).contains { $0.contains("SELECT t0.Z_PK") }, "the rows are not listed")

        let rows = try BatchSQLTests.rows(stack, store, "SELECT Z_PK, Z_OPT, ZRATING, ZFLAG FROM ZITEM ORDER BY Z_PK")
        #expect(rows.count == 1_200)
        for (index, row) in rows.enumerated() {
            let updated = index >= 100
            #expect(row == [.integer(Int64(index + 1)), .integer(updated ? 2 : 1), .integer(Int64(index % 10 + (updated ? 10 : 0))), updated ? .integer(1) : .null])
        }
    }

    @Test func countResultComesFromTheStatementsChangeCount() throws {
        let (stack, store, log) = try BatchSQLTests.stack()
        try stack.seedItems(50)
        log.removeAll()
        let count = try update(stack, "Item", NSPredicate(format: "rating < 3"), ["price": 0.5], .updatedObjectsCountResultType)
        #expect(batchNumber(count) == 15)
        #expect(BatchSQLTests.statements(log).contains("UPDATE ZITEM AS t0 SET ZPRICE = ?2, Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE t0.ZRATING < ?1"))
        #expect(try BatchSQLTests.rows(stack, store, "SELECT COUNT(*) FROM ZITEM WHERE ZPRICE = 0.5") == [[.integer(15)]])
    }

    @Test func aSubEntityUpdateSelectsItsRowsByEntityNumber() throws {
        let (stack, store, log) = try BatchSQLTests.stack()
        try stack.seedItems(4)
        try stack.seedItems(3, entityName: "SpecialItem")
        log.removeAll()
        let count = try update(stack, "SpecialItem", nil, ["level": 5], .updatedObjectsCountResultType)
        #expect(batchNumber(count) == 3)
        let number = store.schema.number(of: try #require(BatchModel.shared.entitiesByName["SpecialItem"]))
        #expect(BatchSQLTests.statements(log).contains("UPDATE ZITEM AS t0 SET ZLEVEL = ?1, Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE t0.Z_ENT = \(number)"))
        #expect(try BatchSQLTests.rows(stack, store, "SELECT Z_ENT, ZLEVEL FROM ZITEM ORDER BY Z_PK").map { $0[1] } == [.null, .null, .null, .null, .integer(5), .integer(5), .integer(5)])
    }

    @Test func aPredicateThatNeedsAJoinSelectsTheKeysInASubquery() throws {
        let (stack, store, log) = try BatchSQLTests.stack()
        _ = try BatchDeleteTests.library(stack)
        log.removeAll()
        let count = try update(stack, "Book", NSPredicate(format: "author.name == %@", "a1"), ["pages": 99], .updatedObjectsCountResultType)
        #expect(batchNumber(count) == 2)
        let statement = try #require(BatchSQLTests.statements(log).first { $0.hasPrefix("UPDATE ZBOOK") })
        #expect(statement.hasPrefix("UPDATE ZBOOK SET ZPAGES = ?2, Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK IN (SELECT t0.Z_PK FROM ZBOOK t0 "))
        #expect(try BatchSQLTests.rows(stack, store, "SELECT ZTITLE, ZPAGES FROM ZBOOK ORDER BY ZTITLE").map { $0[1] } == [.integer(99), .integer(99), .null])
    }

    @Test func fetchesAndFaultsWithoutStalenessReadTheUpdatedRows() throws {
        let (stack, _, _) = try BatchSQLTests.stack()
        let ids = try stack.seedItems(3)
        // Every row is now in the coordinator's row cache (the save wrote it there).
        #expect(try stack.run { context in context.object(with: ids[1]).value(forKey: "rating") as? Int } == 1)
        _ = try update(stack, "Item", nil, ["rating": 42], .statusOnlyResultType)
        // As Apple's, the coordinator is not told of the request: faults fired with the default staleness interval
        // are fulfilled from its cache …
        let cached = try stack.run { context in ids.map { context.object(with: $0).value(forKey: "rating") as? Int } }
        #expect(cached == [0, 1, 2])
        // … while faults that accept no staleness, and fetches (each row's Z_OPT moved on), read the updated rows.
        let fresh = try stack.run { context in
            context.stalenessInterval = 0
            return ids.map { context.object(with: $0).value(forKey: "rating") as? Int }
        }
        #expect(fresh == [42, 42, 42])
        let fetched = try stack.run { context in
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).map { $0.value(forKey: "rating") as? Int }
        }
        #expect(fetched == [42, 42, 42])
    }

    @Test func deleteOfAnEntityWithoutRelationshipsIsOneDelete() throws {
        let (stack, store, log) = try BatchSQLTests.stack()
        try stack.run { context in
            _ = try context.execute(NSBatchInsertRequest(entityName: "Product", objects: (0..<10).map { ["code": "P\($0)", "stock": $0] }))
        }
        log.removeAll()
        let count = try stack.run { context in
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Product"))
            request.fetchRequest.predicate = NSPredicate(format: "stock >= 4")
            request.resultType = .resultTypeCount
            return batchNumber((try context.execute(request) as? NSBatchDeleteResult)?.result)
        }
        #expect(count == 6)
        #expect(BatchSQLTests.statements(log).filter { $0.hasPrefix("DELETE") || $0.hasPrefix("SELECT") } == ["DELETE FROM ZPRODUCT AS t0 WHERE t0.ZSTOCK >= ?1"])
        #expect(try BatchSQLTests.rows(stack, store, "SELECT ZCODE FROM ZPRODUCT ORDER BY ZSTOCK") == (0..<4).map { [.text("P\($0)")] })

        log.removeAll()
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Product"))) }
        #expect(BatchSQLTests.statements(log).filter { $0.hasPrefix("DELETE") } == ["DELETE FROM ZPRODUCT"])
        #expect(try BatchSQLTests.rows(stack, store, "SELECT COUNT(*) FROM ZPRODUCT") == [[.integer(0)]])
    }

    @Test func deletedRowsLeaveTheRowCache() throws {
        let (stack, _, _) = try BatchSQLTests.stack()
        let id = try stack.run { context in
            let product = NSEntityDescription.insertNewObject(forEntityName: "Product", into: context)
            product.setValue("A", forKey: "code")
            try context.save()
            return product.objectID
        }
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Product"))) }
        let error = try stack.run { context in caughtError { try context.existingObject(with: id) } }
        #expect(error?.code == NSManagedObjectReferentialIntegrityError, "the cached row was forgotten with its hierarchy")
    }

    @Test func objectIDResultsAndRelationshipsStillListTheRows() throws {
        let (stack, _, log) = try BatchSQLTests.stack()
        let library = try BatchDeleteTests.library(stack)
        log.removeAll()
        try stack.run { context in
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Author"))
            request.fetchRequest.predicate = NSPredicate(format: "name == %@", "a1")
            _ = try context.execute(request)
        }
        #expect(BatchSQLTests.statements(log).contains("DELETE FROM ZBOOK WHERE Z_PK IN (?, ?)"), "the cascade rule still runs")
        #expect(try stack.count("Book") == 1)

        let ids = try stack.run { context in
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Tag"))
            request.resultType = .resultTypeObjectIDs
            return (try context.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID]
        }
        #expect(Set(ids ?? []) == [library["t1"], library["t2"]])
    }
}

/// The coordinator's row cache forgets a hierarchy by marking its rows stale (freeing 100,000 rows would cost the
/// batch request tens of milliseconds); rows read afterwards are current again, whatever their versions.
@Suite struct RowCacheInvalidationTests {
    private let item = BatchModel.shared.entitiesByName["Item"]!
    private let special = BatchModel.shared.entitiesByName["SpecialItem"]!
    private let product = BatchModel.shared.entitiesByName["Product"]!

    private func id(_ entity: NSEntityDescription, _ key: Int64) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, key: .primaryKey(key), store: nil)
    }

    private func row(_ name: String, version: Int64, of entity: NSEntityDescription) -> ObjectSnapshot {
        var snapshot = entity.layout.emptySnapshot()
        snapshot.attributes[0] = .text(name)
        snapshot.version = version
        return snapshot
    }

    @Test func aForgottenHierarchyReadsAsMissingUntilRowsAreReadAgain() {
        let cache = RowCache()
        cache.store([(id(item, 1), row("a", version: 3, of: item)), (id(special, 2), row("b", version: 1, of: special)),
                     (id(product, 1), row("p", version: 1, of: product))])
        cache.removeRows(ofHierarchiesOf: [special])   // a sub-entity: its whole hierarchy (Item's table) is stale
        #expect(cache.snapshot(for: id(item, 1)) == nil && cache.snapshot(for: id(special, 2)) == nil)
        #expect(cache.snapshot(for: id(product, 1))?.attributes[0] == .text("p"), "other hierarchies are untouched")
        #expect(cache.count == 1)

        // A row read after the request replaces the stale one even with a lower version (the stale row proves nothing).
        cache.store(row("a2", version: 2, of: item), for: id(item, 1))
        #expect(cache.snapshot(for: id(item, 1))?.attributes[0] == .text("a2"))
        // A current row is still kept against an older read.
        cache.store(row("old", version: 1, of: item), for: id(item, 1))
        #expect(cache.snapshot(for: id(item, 1))?.attributes[0] == .text("a2"))
        // Rows a save writes are current too.
        cache.apply(saved: [(id(special, 2), row("b2", version: 2, of: special))], deleted: [])
        #expect(cache.snapshot(for: id(special, 2))?.attributes[0] == .text("b2"))
        #expect(cache.count == 3)
    }

    @Test func staleRowsGoWhenRowsAreNextRecordedForTheHierarchy() {
        let cache = RowCache()
        cache.store((1...100).map { (id(item, $0), row("r\($0)", version: 1, of: item)) })
        cache.store(row("p", version: 1, of: product), for: id(product, 1))
        cache.removeRows(ofHierarchiesOf: [item])
        #expect(cache.heldCount == 101, "marking is instant: nothing is freed by the batch request")
        // New keys, as after a batch delete and inserts: without dropping the stale rows the cache would only grow.
        cache.apply(saved: [(id(item, 101), row("new", version: 1, of: item))], deleted: [])
        #expect(cache.heldCount == 2)
        #expect(cache.snapshot(for: id(item, 101))?.attributes[0] == .text("new"))
        #expect(cache.snapshot(for: id(product, 1)) != nil, "other hierarchies keep their rows")
    }

    @Test func rowsPassingThroughTheCacheFollowTheSameRules() {
        let cache = RowCache()
        cache.store((1...100).map { (id(item, $0), row("r\($0)", version: 1, of: item)) })
        cache.removeRows(ofHierarchiesOf: [item])
        let stale = cache.passingRows { cachedRow, record in
            defer { record(id(item, 1), row("fresh", version: 1, of: item)) }
            return cachedRow.byID(id(item, 1), 1)
        }
        #expect(stale == nil, "a stale row is not handed out, though its version matches")
        #expect(cache.heldCount == 1, "the hierarchy's stale rows went when a row passed through it")
        #expect(cache.snapshot(for: id(item, 1))?.attributes[0] == .text("fresh"))
        let recordedID = id(item, 7)
        cache.store(row("seven", version: 1, of: item), for: recordedID)
        let probe = id(item, 7)
        let reused = cache.passingRows { cachedRow, _ in cachedRow.byID(probe, 1) }
        #expect(reused?.0 === recordedID && reused?.0 !== probe, "a cached row comes with the cache's own ID, equal to the one asked for")
        // By primary key, without an ID: found, certainly absent, or not known without an ID (another store's row).
        let hierarchy = ObjectIdentifier(item.rootEntity)
        let (byKey, missing, otherVersion7, otherStore) = cache.passingRows { cachedRow, _ in
            (cachedRow.byKey(hierarchy, probe.storeIdentifier, 7, 1), cachedRow.byKey(hierarchy, probe.storeIdentifier, 8, 1),
             cachedRow.byKey(hierarchy, probe.storeIdentifier, 7, 2), cachedRow.byKey(hierarchy, "another store", 7, 1))
        }
        if case .found(let foundID, let snapshot) = byKey {
            #expect(foundID === recordedID && snapshot.attributes[0] == .text("seven"))
        } else {
            Issue.record("row 7 is found by its primary key")
        }
        guard case .absent = missing, case .absent = otherVersion7, case .needsID = otherStore else {
            Issue.record("absent rows and versions are reported absent, another store's rows need an ID")
            return
        }
        let (sameVersion, otherVersion) = cache.passingRows { cachedRow, _ in (cachedRow.byID(id(item, 1), 1), cachedRow.byID(id(item, 1), 2)) }
        #expect(sameVersion?.1.attributes[0] == .text("fresh"))
        #expect(otherVersion == nil, "a row of another version is read from the store")
        cache.passingRows { _, record in
            record(id(item, 1), row("older", version: 0, of: item))
            record(id(product, 1), row("p", version: 1, of: product))
        }
        #expect(cache.snapshot(for: id(item, 1))?.attributes[0] == .text("fresh"), "a newer cached row stays")
        #expect(cache.snapshot(for: id(product, 1))?.attributes[0] == .text("p"), "rows of several hierarchies are recorded")
        #expect(cache.count == 3)
    }
}
