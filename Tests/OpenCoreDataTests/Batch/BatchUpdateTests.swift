import OpenCoreData
import Testing

/// `NSBatchUpdateRequest` against every store: constants, expressions, predicates, sub-entities, every result type,
/// versions, uniqueness, and the row cache.
@Suite struct BatchUpdateTests {
    @Test(arguments: StoreKind.batchCapable)
    func updatesConstantsWithEveryResultType(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let seeded = try stack.seedItems(10)
        let stamp = Date(timeIntervalSinceReferenceDate: 12_345)
        try stack.run { context in
            let status = NSBatchUpdateRequest(entityName: "Item")
            status.predicate = NSPredicate(format: "rating < %d", 3)
            status.propertiesToUpdate = ["flag": true, "stamp": stamp]
            #expect(status.requestType == .batchUpdateRequestType)
            #expect(status.includesSubentities)
            let statusResult = try #require(try context.execute(status) as? NSBatchUpdateResult)
            #expect(statusResult.resultType == .statusOnlyResultType)
            #expect((statusResult.result as? NSNumber)?.boolValue == true)

            let ids = NSBatchUpdateRequest(entity: BatchModel.shared.entitiesByName["Item"]!)
            ids.predicate = NSPredicate(format: "name == %@", "item-0005")
            ids.propertiesToUpdate = ["name": "five", "price": NSNull()]
            ids.resultType = .updatedObjectIDsResultType
            let idResult = try #require(try context.execute(ids) as? NSBatchUpdateResult)
            #expect(idResult.resultType == .updatedObjectIDsResultType)
            #expect(idResult.result as? [NSManagedObjectID] == [seeded[5]])

            let count = NSBatchUpdateRequest.batchUpdateRequest(withEntityName: "Item")
            count.propertiesToUpdate = [BatchModel.shared.entitiesByName["Item"]!.attributesByName["rating"]!: NSExpression(forConstantValue: 9)]
            count.predicate = NSPredicate(format: "rating >= 8")
            count.resultType = .updatedObjectsCountResultType
            let countResult = try #require(try context.execute(count) as? NSBatchUpdateResult)
            #expect(countResult.resultType == .updatedObjectsCountResultType)
            #expect(batchNumber(countResult.result) == 2)
        }
        let items = try stack.fetch("Item", sortedBy: "price")
        let byPrice = Dictionary(uniqueKeysWithValues: try stack.fetch("Item").map { ($0.objectID, $0) })
        #expect(items.filter { $0.value(forKey: "flag") as? Bool == true }.count == 3)
        #expect(items.filter { $0.value(forKey: "stamp") as? Date == stamp }.count == 3)
        #expect(byPrice[seeded[5]]?.value(forKey: "name") as? String == "five")
        #expect(byPrice[seeded[5]]?.value(forKey: "price") == nil)
        #expect(byPrice[seeded[8]]?.value(forKey: "rating") as? Int == 9)
        #expect(byPrice[seeded[9]]?.value(forKey: "rating") as? Int == 9)
        #expect(byPrice[seeded[7]]?.value(forKey: "rating") as? Int == 7)
    }

    @Test(arguments: StoreKind.batchCapable)
    func expressionsSeeTheValuesBeforeTheUpdate(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let seeded = try stack.seedItems(4)
        try stack.run { context in
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.propertiesToUpdate = [
                "rating": NSExpression(forFunction: "add:to:", arguments: [NSExpression(forKeyPath: "rating"), NSExpression(forConstantValue: 100)]),
                // price reads rating as it was: the assignments do not see each other.
                "price": NSExpression(format: "rating * 2.5 + price"),
                "name": NSExpression(forFunction: "uppercase:", arguments: [NSExpression(forKeyPath: "name")]),
                "flag": NSExpression(format: "TERNARY(rating > 1, YES, NO)"),
            ]
            request.resultType = .updatedObjectsCountResultType
            let updatedCount = try batchNumber((context.execute(request) as? NSBatchUpdateResult)?.result)
            #expect(updatedCount == 4)
        }
        let byID = Dictionary(uniqueKeysWithValues: try stack.fetch("Item").map { ($0.objectID, $0) })
        for (index, objectID) in seeded.enumerated() {
            let item = try #require(byID[objectID])
            #expect(item.value(forKey: "rating") as? Int == index + 100)
            #expect(item.value(forKey: "price") as? Double == Double(index) * 2.5 + Double(index))
            #expect(item.value(forKey: "name") as? String == String(format: "ITEM-%04d", index))
            #expect(item.value(forKey: "flag") as? Bool == (index > 1))
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func keyPathsAndNowCopyValues(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        try stack.seedItems(3)
        let before = Date()
        try stack.run { context in
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.propertiesToUpdate = ["price": NSExpression(forKeyPath: "rating"), "stamp": NSExpression(forFunction: "now", arguments: [])]
            _ = try context.execute(request)
        }
        for item in try stack.fetch("Item") {
            #expect(item.value(forKey: "price") as? Double == Double(item.value(forKey: "rating") as? Int ?? -1))
            let stamp = try #require(item.value(forKey: "stamp") as? Date)
            #expect(stamp >= before.addingTimeInterval(-1) && stamp <= Date().addingTimeInterval(1))
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func subEntitiesAreUpdatedOnlyWhenIncluded(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        try stack.seedItems(2)
        try stack.seedItems(2, entityName: "SpecialItem")
        try stack.run { context in
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.includesSubentities = false
            request.propertiesToUpdate = ["rating": 50]
            request.resultType = .updatedObjectsCountResultType
            let itemsOnly = try batchNumber((context.execute(request) as? NSBatchUpdateResult)?.result)
            #expect(itemsOnly == 2)
            let all = NSBatchUpdateRequest(entityName: "Item")
            all.propertiesToUpdate = ["flag": true]
            all.resultType = .updatedObjectsCountResultType
            let withSubentities = try batchNumber((context.execute(all) as? NSBatchUpdateResult)?.result)
            #expect(withSubentities == 4)
        }
        #expect(try stack.fetch("SpecialItem").allSatisfy { $0.value(forKey: "rating") as? Int != 50 && $0.value(forKey: "flag") as? Bool == true })
        #expect(try stack.count("Item", NSPredicate(format: "rating == 50")) == 2)
    }

    @Test(arguments: StoreKind.batchCapable)
    func updatedRowsGetANewVersionThatFetchesReadWhileFaultsMayServeTheCachedRow(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let id = try stack.seedItems(1)[0]
        // A context that read the row (the coordinator's row cache now holds it) and keeps the object.
        let reader = stack.newContext()
        let object = try reader.performAndWait { try reader.existingObject(with: id) }
        try stack.run { context in
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.propertiesToUpdate = ["name": "renamed"]
            _ = try context.execute(request)
        }
        // A fetch reads the store's row (its version moved on); a fault fired with the default staleness interval may
        // be fulfilled from the coordinator's cache, which is not told of a batch request (as Apple's), while one that
        // accepts no staleness reads the store.
        let fetched = try stack.run { context in
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first?.value(forKey: "name") as? String
        }
        #expect(fetched == "renamed")
        let fresh = try stack.run { context in
            context.stalenessInterval = 0
            return try context.existingObject(with: id).value(forKey: "name") as? String
        }
        #expect(fresh == "renamed")
        // Batch updates do not touch contexts …
        reader.performAndWait {
            #expect(object.value(forKey: "name") as? String == "item-0000")
            // … and the row's version moved on, so saving the stale object is a merge conflict.
            object.setValue(1, forKey: "rating")
            #expect(caughtError { try reader.save() }?.code == NSManagedObjectMergeError)
            reader.rollback()
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: [id]], into: [reader])
        try reader.performAndWait {
            #expect(object.value(forKey: "name") as? String == "renamed")
            object.setValue(2, forKey: "rating")
            try reader.save()
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func anUpdateThatBreaksAUniquenessConstraintChangesNothing(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        try stack.run { context in
            _ = try context.execute(NSBatchInsertRequest(entityName: "Product", objects: [["code": "A"], ["code": "B"]]))
            let request = NSBatchUpdateRequest(entityName: "Product")
            request.propertiesToUpdate = ["code": "same", "stock": 4]
            let error = caughtError { try context.execute(request) }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSManagedObjectConstraintMergeError)
        }
        #expect(try stack.fetch("Product", sortedBy: "code").map { $0.value(forKey: "code") as? String } == ["A", "B"])
        #expect(try stack.count("Product", NSPredicate(format: "stock == 4")) == 0)
    }

    @Test(arguments: StoreKind.batchCapable)
    func predicatesWithObjectsAndRelationships(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let (authorID, bookIDs) = try stack.run { context -> (NSManagedObjectID, [NSManagedObjectID]) in
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Ann", forKey: "name")
            var books: [NSManagedObject] = []
            for index in 0..<3 {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                book.setValue("t\(index)", forKey: "title")
                if index < 2 { book.setValue(author, forKey: "author") }
                books.append(book)
            }
            try context.save()
            return (author.objectID, books.map(\.objectID))
        }
        try stack.run { context in
            let author = try context.existingObject(with: authorID)
            let request = NSBatchUpdateRequest(entityName: "Book")
            request.predicate = NSPredicate(format: "author == %@", author)
            request.propertiesToUpdate = ["pages": 42]
            request.resultType = .updatedObjectIDsResultType
            let ids = (try context.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID]
            #expect(Set(ids ?? []) == Set(bookIDs.prefix(2)))
            let byName = NSBatchUpdateRequest(entityName: "Book")
            byName.predicate = NSPredicate(format: "author.name == %@", "Ann")
            byName.propertiesToUpdate = ["title": NSExpression(format: "title")]
            byName.resultType = .updatedObjectsCountResultType
            let byAuthorName = try batchNumber((context.execute(byName) as? NSBatchUpdateResult)?.result)
            #expect(byAuthorName == 2)
        }
        #expect(try stack.count("Book", NSPredicate(format: "pages == 42")) == 2)
    }
}
