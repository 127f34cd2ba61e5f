import OpenCoreData
import Testing

/// `NSBatchInsertRequest` against every store: dictionaries, both handlers, every result type, defaults, primary
/// keys, uniqueness constraints under each merge policy, external storage.
@Suite struct BatchInsertTests {
    @Test(arguments: StoreKind.batchCapable)
    func insertsDictionariesWithEveryResultType(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let stamp = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
        try stack.run { context in
            let status = NSBatchInsertRequest(entityName: "Item", objects: [["name": "a", "rating": 1, "price": 1.5, "flag": true, "stamp": stamp]])
            #expect(status.resultType == .statusOnly)
            #expect(status.requestType == .batchInsertRequestType)
            let statusResult = try #require(try context.execute(status) as? NSBatchInsertResult)
            #expect(statusResult.resultType == .statusOnly)
            #expect((statusResult.result as? NSNumber)?.boolValue == true)

            let ids = NSBatchInsertRequest(entity: BatchModel.shared.entitiesByName["Item"]!, objects: [["name": "b"], ["name": "c", "rating": NSNumber(value: 3)]])
            ids.resultType = .objectIDs
            let idResult = try #require(try context.execute(ids) as? NSBatchInsertResult)
            #expect(idResult.resultType == .objectIDs)
            let objectIDs = try #require(idResult.result as? [NSManagedObjectID])
            #expect(objectIDs.count == 2)
            #expect(objectIDs.allSatisfy { !$0.isTemporaryID && $0.entity.name == "Item" })
            let b = try context.existingObject(with: objectIDs[0])
            #expect(b.value(forKey: "name") as? String == "b")

            let count = NSBatchInsertRequest(entityName: "Item", objects: [["name": "d"], ["name": "e"], ["name": "f"]])
            count.resultType = .count
            let countResult = try #require(try context.execute(count) as? NSBatchInsertResult)
            #expect(countResult.resultType == .count)
            #expect(batchNumber(countResult.result) == 3)
        }
        let items = try stack.fetch("Item")
        #expect(items.map { $0.value(forKey: "name") as? String } == ["a", "b", "c", "d", "e", "f"])
        let a = items[0]
        #expect(a.value(forKey: "rating") as? Int == 1)
        #expect(a.value(forKey: "price") as? Double == 1.5)
        #expect(a.value(forKey: "flag") as? Bool == true)
        #expect(a.value(forKey: "stamp") as? Date == stamp)
        // Attributes a dictionary leaves out get their default values (rating's is 7) or nil.
        #expect(items[1].value(forKey: "rating") as? Int == 7)
        #expect(items[1].value(forKey: "price") == nil)
        #expect(items[2].value(forKey: "rating") as? Int == 3)
    }

    @Test(arguments: StoreKind.batchCapable)
    func dictionaryHandlerIsCalledUntilItReturnsTrue(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let names = ["x", "y", "z"]
        var calls = 0
        let result = try stack.run { context in
            let request = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
                defer { calls += 1 }
                guard calls < names.count else { return true }
                dictionary["name"] = names[calls]
                dictionary["rating"] = calls * 10
                return false
            })
            request.resultType = .count
            return try #require(try context.execute(request) as? NSBatchInsertResult)
        }
        #expect(calls == 4, "three dictionaries, then the call that returns true")
        #expect(batchNumber(result.result) == 3)
        let items = try stack.fetch("Item")
        #expect(items.map { $0.value(forKey: "name") as? String } == names)
        #expect(items.map { $0.value(forKey: "rating") as? Int } == [0, 10, 20])
    }

    @Test(arguments: StoreKind.batchCapable)
    func managedObjectHandlerObjectsAreNeverInsertedIntoAContext(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        var seen: [NSManagedObject] = []
        let ids = try stack.run { context -> [NSManagedObjectID] in
            let request = NSBatchInsertRequest(entity: BatchModel.shared.entitiesByName["Item"]!, managedObjectHandler: { object in
                guard seen.count < 2 else { return true }
                #expect(object.managedObjectContext == nil)
                #expect(object.entity.name == "Item")
                object.setValue("object-\(seen.count)", forKey: "name")
                object.setValue(Double(seen.count) + 0.25, forKey: "price")
                seen.append(object)
                return false
            })
            request.resultType = .objectIDs
            let result = try #require(try context.execute(request) as? NSBatchInsertResult)
            #expect(context.insertedObjects.isEmpty && context.registeredObjects.isEmpty)
            return try #require(result.result as? [NSManagedObjectID])
        }
        #expect(ids.count == 2)
        #expect(seen.allSatisfy { $0.managedObjectContext == nil && $0.objectID.isTemporaryID })
        let items = try stack.fetch("Item")
        #expect(items.map { $0.value(forKey: "name") as? String } == ["object-0", "object-1"])
        #expect(items.map { $0.value(forKey: "price") as? Double } == [0.25, 1.25])
        #expect(items.map { $0.value(forKey: "rating") as? Int } == [7, 7], "a new object starts with the default values")
    }

    @Test(arguments: StoreKind.batchCapable)
    func handlerRequestsByEntityName(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        var left = 2
        try stack.run { context in
            _ = try context.execute(NSBatchInsertRequest(entityName: "Item", managedObjectHandler: { object in
                guard left > 0 else { return true }
                object.setValue("m\(left)", forKey: "name")
                left -= 1
                return false
            }))
            var once = true
            _ = try context.execute(NSBatchInsertRequest(entityName: "SpecialItem", dictionaryHandler: { dictionary in
                guard once else { return true }
                once = false
                dictionary.addEntries(from: ["name": "special", "level": 4])
                return false
            }))
        }
        #expect(try stack.count("Item") == 3, "sub-entity objects are items too")
        let special = try #require(try stack.fetch("SpecialItem").first)
        #expect(special.entity.name == "SpecialItem")
        #expect(special.value(forKey: "level") as? Int == 4)
    }

    @Test(arguments: StoreKind.batchCapable)
    func newObjectsSavedLaterGetFreshPrimaryKeys(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        try stack.seedItems(2)
        let inserted = try stack.run { context -> [NSManagedObjectID] in
            let request = NSBatchInsertRequest(entityName: "Item", objects: (0..<5).map { ["name": "batch-\($0)"] })
            request.resultType = .objectIDs
            return try #require((try context.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
        }
        let saved = try stack.seedItems(2)
        let all = Set(try stack.fetch("Item").map(\.objectID))
        #expect(all.count == 9)
        #expect(Set(inserted).isDisjoint(with: saved))
        #expect(all.isSuperset(of: inserted) && all.isSuperset(of: saved))
    }

    @Test(arguments: StoreKind.batchCapable)
    func uniquenessConflictsFollowTheContextsMergePolicy(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let existing = try stack.run { context -> NSManagedObjectID in
            let product = NSEntityDescription.insertNewObject(forEntityName: "Product", into: context)
            product.setValue("A1", forKey: "code")
            product.setValue("old", forKey: "name")
            product.setValue(1, forKey: "stock")
            try context.save()
            return product.objectID
        }
        let rows: [[String: Any]] = [["code": "A1", "name": "new", "stock": 5], ["code": "B2", "name": "b"]]

        // NSErrorMergePolicy (the default): the request fails and inserts nothing.
        let error = try stack.run { context in
            caughtError { try context.execute(NSBatchInsertRequest(entityName: "Product", objects: rows)) }
        }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        #expect(error?.localizedDescription.contains("code") == true)
        #expect(try stack.count("Product") == 1)

        // NSMergeByPropertyStoreTrumpMergePolicy: the stored row is kept, the other object is inserted.
        let kept = try stack.run { context -> [NSManagedObjectID] in
            context.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
            let request = NSBatchInsertRequest(entityName: "Product", objects: rows)
            request.resultType = .objectIDs
            return try #require((try context.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
        }
        #expect(kept.first == existing)
        #expect(try stack.fetch("Product", sortedBy: "code").map { $0.value(forKey: "name") as? String } == ["old", "b"])

        // NSMergeByPropertyObjectTrumpMergePolicy: an upsert — the stored rows take the new values.
        let context = stack.newContext()
        let registered = try context.performAndWait { try context.existingObject(with: existing) }
        let upserted = try stack.run { context -> [NSManagedObjectID] in
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            let request = NSBatchInsertRequest(entityName: "Product", objects: rows + [["code": "B2", "name": "b again", "stock": 9]])
            request.resultType = .objectIDs
            return try #require((try context.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
        }
        #expect(upserted.count == 3 && upserted[0] == existing && upserted[1] == upserted[2])
        let products = try stack.fetch("Product", sortedBy: "code")
        #expect(products.map { $0.value(forKey: "name") as? String } == ["new", "b again"])
        #expect(products.map { $0.value(forKey: "stock") as? Int } == [5, 9])
        // The upserted row's version moved on: a context holding the old values meets a merge conflict.
        context.performAndWait {
            registered.setValue("stale edit", forKey: "name")
            #expect(caughtError { try context.save() }?.code == NSManagedObjectMergeError)
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func largeBinaryValuesGoToExternalStorage(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let small = Data([1, 2, 3])
        try stack.run { context in
            _ = try context.execute(NSBatchInsertRequest(entityName: "Item", objects: [["name": "big", "payload": big], ["name": "small", "payload": small]]))
        }
        let items = try stack.fetch("Item")
        #expect(items.map { $0.value(forKey: "payload") as? Data } == [big, small])
        if let url = stack.stack.storeURL {
            let folder = url.deletingLastPathComponent().appendingPathComponent(".Store_SUPPORT/_EXTERNAL_DATA")
            #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.count == 1)
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func aChildContextExecutesAgainstItsCoordinator(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let parent = stack.newContext()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        let count = try child.performAndWait {
            let request = NSBatchInsertRequest(entityName: "Item", objects: [["name": "from a child"]])
            request.resultType = .count
            return batchNumber((try child.execute(request) as? NSBatchInsertResult)?.result)
        }
        #expect(count == 1)
        #expect(try stack.fetch("Item").map { $0.value(forKey: "name") as? String } == ["from a child"])
    }

    @Test(arguments: StoreKind.batchCapable)
    func theCoordinatorExecutesBatchRequestsToo(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let result = try stack.run { context in
            let request = NSBatchInsertRequest(entityName: "Item", objects: [["name": "via coordinator"]])
            request.resultType = .count
            return try stack.coordinator.execute(request, with: context) as? NSBatchInsertResult
        }
        #expect(batchNumber(result?.result) == 1)
        #expect(try stack.count("Item") == 1)
    }
}
