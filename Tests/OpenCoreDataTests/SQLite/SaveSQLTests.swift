import Testing

@testable import OpenCoreData

/// The SQL a save runs: optimistic locking is part of each `UPDATE` and `DELETE` (no `SELECT Z_OPT` per row), and a
/// row whose version changed since it was read is still reported as a conflict, with nothing written.
@Suite struct SaveSQLTests {
    private let updateItem = "UPDATE ZITEM SET Z_OPT = ?, ZNAME = ?, ZRATING = ?, ZPRICE = ?, ZFLAG = ?, ZSTAMP = ?, ZPAYLOAD = ? WHERE Z_PK = ? AND IFNULL(Z_OPT, 0) = ?"

    /// Objects of `entityName` fetched realized in `context`, by name.
    private func objects(_ context: NSManagedObjectContext, _ entityName: String = "Item", key: String = "name") throws -> [String: NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        request.returnsObjectsAsFaults = false
        return Dictionary(uniqueKeysWithValues: try context.fetch(request).map { ($0.value(forKey: key) as? String ?? "", $0) })
    }

    @Test func updatesAndDeletesCheckTheVersionInTheSameStatement() throws {
        let (stack, store, log) = try BatchSQLTests.stack()
        try stack.seedItems(3)
        let context = stack.newContext()
        try context.performAndWait {
            let items = try objects(context)
            items["item-0000"]?.setValue(40, forKey: "rating")
            items["item-0001"]?.setValue("renamed", forKey: "name")
            context.delete(try #require(items["item-0002"]))
            log.removeAll()
            try context.save()
        }
        let statements = BatchSQLTests.statements(log)
        #expect(statements.filter { $0 == updateItem }.count == 2)
        #expect(statements.contains("DELETE FROM ZITEM WHERE Z_PK = ? AND IFNULL(Z_OPT, 0) = ?"))
        #expect(!statements.contains { $0.hasPrefix("SELECT Z_OPT") }, "no version look-up when every row matched")
        #expect(try BatchSQLTests.rows(stack, store, "SELECT ZNAME, ZRATING, Z_OPT FROM ZITEM ORDER BY Z_PK") == [
            [.text("item-0000"), .integer(40), .integer(2)], [.text("renamed"), .integer(1), .integer(2)],
        ])
    }

    @Test func aStaleUpdateIsAConflictAndNothingIsWritten() throws {
        let (stack, store, _) = try BatchSQLTests.stack()
        try stack.seedItems(2)
        let stale = stack.newContext()
        let items = try stale.performAndWait { try objects(stale) }
        try stack.run { other in
            try objects(other)["item-0001"]?.setValue(9, forKey: "rating")
            try other.save()
        }
        let error = stale.performAndWait { () -> NSError? in
            items["item-0000"]?.setValue(50, forKey: "rating")
            items["item-0001"]?.setValue(60, forKey: "rating")
            return caughtError { try stale.save() }
        }
        #expect(error?.code == NSManagedObjectMergeError)
        let conflicts = error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
        #expect(conflicts?.map(\.sourceObject.objectID) == [try #require(items["item-0001"]).objectID])
        #expect(conflicts?.first?.newVersionNumber == 2 && conflicts?.first?.oldVersionNumber == 1)
        #expect(try BatchSQLTests.rows(stack, store, "SELECT ZRATING, Z_OPT FROM ZITEM ORDER BY Z_PK") == [[.integer(0), .integer(1)], [.integer(9), .integer(2)]],
                "the fresh row's update was rolled back with the stale one")
    }

    @Test func aStaleDeleteIsAConflictButARowDeletedAlreadyIsNot() throws {
        let (stack, store, _) = try BatchSQLTests.stack()
        try stack.seedItems(2)
        let stale = stack.newContext()
        let items = try stale.performAndWait { try objects(stale) }
        try stack.run { other in
            let fresh = try objects(other)
            fresh["item-0000"]?.setValue(5, forKey: "rating")
            other.delete(try #require(fresh["item-0001"]))
            try other.save()
        }
        let error = try stale.performAndWait { () -> NSError? in
            stale.delete(try #require(items["item-0000"]))
            return caughtError { try stale.save() }
        }
        #expect(error?.code == NSManagedObjectMergeError, "the row changed since it was read")
        #expect(try BatchSQLTests.rows(stack, store, "SELECT COUNT(*) FROM ZITEM") == [[.integer(1)]])

        let other = stack.newContext()
        try other.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            let remaining = try other.fetch(request)
            // Delete the same row from two contexts: the second finds it gone, which is not a conflict.
            let twin = stack.newContext()
            try twin.performAndWait {
                twin.delete(try twin.existingObject(with: remaining[0].objectID))
                try twin.save()
            }
            other.delete(remaining[0])
            try other.save()
        }
        #expect(try BatchSQLTests.rows(stack, store, "SELECT COUNT(*) FROM ZITEM") == [[.integer(0)]])
    }

    @Test func aVersionConflictIsReportedBeforeAUniquenessFailure() throws {
        let (stack, _, _) = try BatchSQLTests.stack()
        try stack.run { context in
            _ = try context.execute(NSBatchInsertRequest(entityName: "Product", objects: [["code": "A", "name": "a"], ["code": "B", "name": "b"]]))
        }
        let stale = stack.newContext()
        let products = try stale.performAndWait { try objects(stale, "Product", key: "code") }
        try stack.run { other in
            try objects(other, "Product", key: "code")["A"]?.setValue("changed", forKey: "name")
            try other.save()
        }
        let error = stale.performAndWait { () -> NSError? in
            products["A"]?.setValue(3, forKey: "stock")     // stale
            products["B"]?.setValue("A", forKey: "code")    // would duplicate A's code
            return caughtError { try stale.save() }
        }
        #expect(error?.code == NSManagedObjectMergeError)
    }
}
