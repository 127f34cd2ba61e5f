import OpenCoreData
import Testing

/// `NSBatchDeleteRequest` against every store: fetch requests, object IDs, every result type, and the delete rules
/// Apple's Core Data applies to batch deletes.
///
/// Evidence for the rules (see `BatchDeleteRules` in the library for the full list): Apple's Core Data Batch
/// Programming Guide ("Implementing Batch Deletes": deletes run in the store, validation rules are not enforced);
/// Bart Jacobs, "Core Data and Swift: Batch Deletes" ("the delete rules for relationships are applied by Core
/// Data"); and what Core Data's SQLite adapter generates for a batch delete (temporary triggers: cascade deletes the
/// related rows, nullify clears to-one inverses and bumps `Z_OPT`, a mandatory inverse fails with "Batch delete
/// failed due to mandatory OTO nullify inverse on <Entity>/<relationship>", no action does nothing, and any other
/// rule — deny — fails with `NSCoreDataError` "Delete rule is not supported for batch deletes").
@Suite struct BatchDeleteTests {
    @Test(arguments: StoreKind.batchCapable)
    func deletesWhatAFetchRequestMatchesWithEveryResultType(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let seeded = try stack.seedItems(20)
        try stack.run { context in
            let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
            fetch.predicate = NSPredicate(format: "rating == 0")
            let status = NSBatchDeleteRequest(fetchRequest: fetch)
            #expect(status.resultType == .resultTypeStatusOnly)
            #expect(status.requestType == .batchDeleteRequestType)
            #expect(status.fetchRequest === fetch)
            let statusResult = try #require(try context.execute(status) as? NSBatchDeleteResult)
            #expect(statusResult.resultType == .resultTypeStatusOnly)
            #expect((statusResult.result as? NSNumber)?.boolValue == true)

            let byIDs = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
            byIDs.predicate = NSPredicate(format: "rating == 1")
            let ids = NSBatchDeleteRequest(fetchRequest: byIDs)
            ids.resultType = .resultTypeObjectIDs
            let idResult = try #require(try context.execute(ids) as? NSBatchDeleteResult)
            #expect(idResult.resultType == .resultTypeObjectIDs)
            #expect(idResult.result as? [NSManagedObjectID] == [seeded[1], seeded[11]])

            let count = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Item"))
            count.fetchRequest.predicate = NSPredicate(format: "price >= 15")
            count.resultType = .resultTypeCount
            let countResult = try #require(try context.execute(count) as? NSBatchDeleteResult)
            #expect(countResult.resultType == .resultTypeCount)
            #expect(batchNumber(countResult.result) == 5, "items 15…19")
        }
        let left = try stack.fetch("Item").map { $0.value(forKey: "name") as? String ?? "" }
        #expect(left == (2...14).filter { $0 != 10 && $0 != 11 }.map { String(format: "item-%04d", $0) })
    }

    @Test(arguments: StoreKind.batchCapable)
    func deletesObjectsByID(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let seeded = try stack.seedItems(5)
        let deleted = try stack.run { context -> [NSManagedObjectID]? in
            let request = NSBatchDeleteRequest(objectIDs: [seeded[3], seeded[1], seeded[3]])
            request.resultType = .resultTypeObjectIDs
            #expect(request.fetchRequest.entityName == "Item")
            return (try context.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID]
        }
        #expect(deleted == [seeded[3], seeded[1]])
        #expect(try stack.fetch("Item").map(\.objectID) == [seeded[0], seeded[2], seeded[4]])
        // Deleting them again deletes nothing.
        let again = try stack.run { context in
            let request = NSBatchDeleteRequest(objectIDs: [seeded[3]])
            request.resultType = .resultTypeCount
            return batchNumber((try context.execute(request) as? NSBatchDeleteResult)?.result)
        }
        #expect(again == 0)
    }

    @Test(arguments: StoreKind.batchCapable)
    func objectIDsOfDifferentEntitiesAreRefused(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let item = try stack.seedItems(1)[0]
        let product = try stack.run { context -> NSManagedObjectID in
            let request = NSBatchInsertRequest(entityName: "Product", objects: [["code": "x"]])
            request.resultType = .objectIDs
            return try #require(((try context.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])?.first)
        }
        let error = try stack.run { context in caughtError { try context.execute(NSBatchDeleteRequest(objectIDs: [item, product])) } }
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSCoreDataError)
        #expect(error?.localizedDescription.contains("Product") == true)
        #expect(try stack.count("Item") == 1)
        #expect(try stack.count("Product") == 1)
    }

    @Test(arguments: StoreKind.batchCapable)
    func subEntitiesAreDeletedOnlyWhenIncluded(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        try stack.seedItems(2)
        try stack.seedItems(3, entityName: "SpecialItem")
        try stack.run { context in
            let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
            fetch.includesSubentities = false
            let request = NSBatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .resultTypeCount
            let deletedCount = try batchNumber((context.execute(request) as? NSBatchDeleteResult)?.result)
            #expect(deletedCount == 2)
        }
        #expect(try stack.count("Item") == 3)
        #expect(try stack.count("SpecialItem") == 3)
    }

    @Test(arguments: StoreKind.batchCapable)
    func aFetchLimitDeletesInChunksInTheFetchRequestsOrder(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let seeded = try stack.seedItems(10)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        fetch.predicate = NSPredicate(format: "rating != 5")
        fetch.sortDescriptors = [NSSortDescriptor(key: "price", ascending: false)]
        fetch.fetchLimit = 3
        var chunks: [[NSManagedObjectID]] = []
        while true {
            let request = NSBatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .resultTypeObjectIDs
            let deleted = try stack.run { context in (try context.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID] ?? [] }
            if deleted.isEmpty { break }
            chunks.append(deleted)
        }
        #expect(chunks == [[seeded[9], seeded[8], seeded[7]], [seeded[6], seeded[4], seeded[3]], [seeded[2], seeded[1], seeded[0]]])
        #expect(try stack.fetch("Item").map(\.objectID) == [seeded[5]])
    }

    // MARK: Delete rules

    /// Authors a1 (books b1, b2) and a2 (b3); publisher p1 (b1, b3); tags t1 (b1, b2) and t2 (b2, b3).
    struct Library {
        var ids: [String: NSManagedObjectID]
        subscript(_ name: String) -> NSManagedObjectID { ids[name]! }
    }

    static func library(_ stack: BatchStack) throws -> Library {
        try stack.run { context in
            var objects: [String: NSManagedObject] = [:]
            func make(_ entity: String, _ name: String, key: String = "name") -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                object.setValue(name, forKey: key)
                objects[name] = object
                return object
            }
            let a1 = make("Author", "a1"), a2 = make("Author", "a2"), p1 = make("Publisher", "p1")
            let t1 = make("Tag", "t1"), t2 = make("Tag", "t2")
            let b1 = make("Book", "b1", key: "title"), b2 = make("Book", "b2", key: "title"), b3 = make("Book", "b3", key: "title")
            b1.setValue(a1, forKey: "author"); b2.setValue(a1, forKey: "author"); b3.setValue(a2, forKey: "author")
            b1.setValue(p1, forKey: "publisher"); b3.setValue(p1, forKey: "publisher")
            t1.mutableSetValue(forKey: "books").addObjects(from: [b1, b2])
            t2.mutableSetValue(forKey: "books").addObjects(from: [b2, b3])
            try context.save()
            return Library(ids: objects.mapValues(\.objectID))
        }
    }

    /// The titles of a to-many relationship's members, read by a fresh context.
    static func titles(_ stack: BatchStack, _ id: NSManagedObjectID, _ key: String, _ memberKey: String = "title") throws -> [String] {
        try stack.run { context in
            let object = try context.existingObject(with: id)
            return (object.value(forKey: key) as? NSSet)?.allObjects.compactMap { ($0 as? NSManagedObject)?.value(forKey: memberKey) as? String }.sorted() ?? []
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func cascadeDeletesRelatedObjectsAndTheirRulesApply(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let library = try Self.library(stack)
        let deleted = try stack.run { context -> [NSManagedObjectID]? in
            let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Author")
            fetch.predicate = NSPredicate(format: "name == %@", "a1")
            let request = NSBatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .resultTypeObjectIDs
            return (try context.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID]
        }
        #expect(deleted == [library["a1"]], "the result lists what the request matched, not what cascade rules deleted")
        #expect(try stack.fetch("Author").map { $0.value(forKey: "name") as? String } == ["a2"])
        #expect(try stack.fetch("Book", sortedBy: "title").map { $0.value(forKey: "title") as? String } == ["b3"])
        // The cascaded books' own nullify rules ran: they left the publisher and both tags.
        #expect(try Self.titles(stack, library["p1"], "books") == ["b3"])
        #expect(try Self.titles(stack, library["t1"], "books") == [])
        #expect(try Self.titles(stack, library["t2"], "books") == ["b3"])
    }

    @Test(arguments: StoreKind.batchCapable)
    func nullifyClearsToOneInverses(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let library = try Self.library(stack)
        // A context holding b1 before the delete: its row's version moves on.
        let reader = stack.newContext()
        let b1 = try reader.performAndWait { try reader.existingObject(with: library["b1"]) }
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(objectIDs: [library["p1"]])) }
        let books = try stack.fetch("Book", sortedBy: "title")
        #expect(books.count == 3)
        #expect(books.allSatisfy { $0.value(forKey: "publisher") == nil })
        reader.performAndWait {
            b1.setValue("edited", forKey: "title")
            #expect(caughtError { try reader.save() }?.code == NSManagedObjectMergeError)
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func nullifyLeavesToManyInverses(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let library = try Self.library(stack)
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(objectIDs: [library["b3"], library["b1"]])) }
        #expect(try Self.titles(stack, library["a1"], "books") == ["b2"])
        #expect(try Self.titles(stack, library["a2"], "books") == [])
        #expect(try Self.titles(stack, library["p1"], "books") == [])
        #expect(try Self.titles(stack, library["t1"], "books") == ["b2"])
        #expect(try Self.titles(stack, library["t2"], "books") == ["b2"])
        #expect(try stack.count("Author") == 2)
        #expect(try stack.count("Tag") == 2)
        #expect(try stack.count("Publisher") == 1)
    }

    @Test(arguments: StoreKind.batchCapable)
    func nullifyUnlinksManyToMany(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let library = try Self.library(stack)
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(objectIDs: [library["t2"]])) }
        #expect(try Self.titles(stack, library["b1"], "tags", "name") == ["t1"])
        #expect(try Self.titles(stack, library["b2"], "tags", "name") == ["t1"])
        #expect(try Self.titles(stack, library["b3"], "tags", "name") == [])
        #expect(try Self.titles(stack, library["t1"], "books") == ["b1", "b2"])
    }

    @Test(arguments: StoreKind.batchCapable)
    func denyRulesMakeTheRequestFailBeforeDeletingAnything(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        try stack.run { context in
            let empty = NSEntityDescription.insertNewObject(forEntityName: "Vault", into: context)
            empty.setValue("empty", forKey: "name")
            let full = NSEntityDescription.insertNewObject(forEntityName: "Vault", into: context)
            full.setValue("full", forKey: "name")
            let item = NSEntityDescription.insertNewObject(forEntityName: "VaultItem", into: context)
            item.setValue(full, forKey: "vault")
            try context.save()
        }
        let error = try stack.run { context in caughtError { try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Vault"))) } }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSCoreDataError)
        #expect(error?.userInfo["Reason"] as? String == "Delete rule is not supported for batch deletes")
        #expect(error?.userInfo["Relationship"] as? String == "Vault.items")
        #expect(try stack.count("Vault") == 2, "even the vault without items stays: the rule is refused, not evaluated")
        // The other side (nullify) is fine.
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "VaultItem"))) }
        #expect(try stack.count("VaultItem") == 0)
    }

    @Test(arguments: StoreKind.batchCapable)
    func aMandatoryInverseThatWouldPointAtADeletedObjectFailsTheRequest(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        try stack.run { context in
            for (number, owned) in [("P-1", true), ("P-2", false)] {
                let passport = NSEntityDescription.insertNewObject(forEntityName: "Passport", into: context)
                passport.setValue(number, forKey: "number")
                if owned {
                    let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                    person.setValue("Pat", forKey: "name")
                    person.setValue(passport, forKey: "passport")
                }
            }
            try context.save()
        }
        let error = try stack.run { context in caughtError { try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Passport"))) } }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.localizedDescription.contains("Batch delete failed due to mandatory OTO nullify inverse on Passport/owner") == true)
        #expect(try stack.count("Passport") == 2, "nothing was deleted")
        // A passport without an owner can go.
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Passport")
        fetch.predicate = NSPredicate(format: "owner == nil")
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(fetchRequest: fetch)) }
        #expect(try stack.fetch("Passport", sortedBy: "number").map { $0.value(forKey: "number") as? String } == ["P-1"])
    }

    @Test(arguments: StoreKind.batchCapable)
    func noActionLeavesTheOtherSideAlone(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let (shelf, item) = try stack.run { context -> (NSManagedObjectID, NSManagedObjectID) in
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            let item = NSEntityDescription.insertNewObject(forEntityName: "ShelfItem", into: context)
            item.setValue(shelf, forKey: "shelf")
            try context.save()
            return (shelf.objectID, item.objectID)
        }
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(objectIDs: [shelf])) }
        #expect(try stack.count("Shelf") == 0)
        let pointsAt = try stack.run { context in (try context.existingObject(with: item).value(forKey: "shelf") as? NSManagedObject)?.objectID }
        #expect(pointsAt == shelf, "the item still refers to the deleted shelf, as Apple's store leaves it")
    }
}
