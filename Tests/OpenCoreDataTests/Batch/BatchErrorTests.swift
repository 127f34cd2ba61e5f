import OpenCoreData
import Testing

/// Bad input to batch requests throws an `NSError` in Cocoa's domain with a message that names the entity and key —
/// never a crash — and changes nothing.
@Suite struct BatchErrorTests {
    static func error(_ stack: BatchStack, _ request: NSPersistentStoreRequest) throws -> NSError? {
        try stack.run { context in caughtError { try context.execute(request) } }
    }

    @Test(arguments: StoreKind.batchCapable)
    func badInsertDictionaries(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let unknown = try Self.error(stack, NSBatchInsertRequest(entityName: "Item", objects: [["name": "ok"], ["nmae": "typo"]]))
        #expect(unknown?.domain == NSCocoaErrorDomain && unknown?.code == NSCoreDataError)
        #expect(unknown?.localizedDescription.contains("'nmae'") == true && unknown?.localizedDescription.contains("'Item'") == true)
        #expect(unknown?.userInfo[NSValidationKeyErrorKey] as? String == "nmae")

        let wrongType = try Self.error(stack, NSBatchInsertRequest(entityName: "Item", objects: [["rating": "five"]]))
        #expect(wrongType?.domain == NSCocoaErrorDomain && wrongType?.code == NSManagedObjectValidationError)
        #expect(wrongType?.localizedDescription.contains("'rating'") == true && wrongType?.localizedDescription.contains("String") == true)
        #expect(wrongType?.userInfo[NSValidationKeyErrorKey] as? String == "rating")

        let relationship = try Self.error(stack, NSBatchInsertRequest(entityName: "Book", objects: [["title": "t", "author": NSNull()]]))
        #expect(relationship?.code == NSCoreDataError)
        #expect(relationship?.localizedDescription.contains("relationship") == true)

        let handlerType = try Self.error(stack, NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
            dictionary["stamp"] = 12
            return false
        }))
        #expect(handlerType?.code == NSManagedObjectValidationError)

        let abstractOrMissing = try Self.error(stack, NSBatchInsertRequest(entityName: "NoSuchEntity", objects: [[:]]))
        #expect(abstractOrMissing?.code == NSCoreDataError && abstractOrMissing?.localizedDescription.contains("NoSuchEntity") == true)
        #expect(try stack.count("Item") == 0)
        #expect(try stack.count("Book") == 0)
    }

    @Test(arguments: StoreKind.batchCapable)
    func relationshipsSetByAManagedObjectHandlerAreRefused(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        var made = false
        let error = try Self.error(stack, NSBatchInsertRequest(entityName: "Book", managedObjectHandler: { book in
            guard !made else { return true }
            made = true
            let author = NSManagedObject(entity: book.entity.managedObjectModel.entitiesByName["Author"]!, insertInto: nil)
            book.setValue(author, forKey: "author")
            return false
        }))
        #expect(error?.code == NSCoreDataError && error?.localizedDescription.contains("'author'") == true)
        #expect(try stack.count("Book") == 0)
        #expect(try stack.count("Author") == 0)
    }

    @Test(arguments: StoreKind.batchCapable)
    func badPropertiesToUpdate(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        try stack.seedItems(3)
        func update(_ properties: [AnyHashable: Any]?, entity: String = "Item") -> NSBatchUpdateRequest {
            let request = NSBatchUpdateRequest(entityName: entity)
            request.propertiesToUpdate = properties
            return request
        }
        let unknown = try Self.error(stack, update(["ratting": 1]))
        #expect(unknown?.code == NSCoreDataError && unknown?.localizedDescription.contains("'ratting'") == true)
        let wrongType = try Self.error(stack, update(["price": "cheap"]))
        #expect(wrongType?.code == NSManagedObjectValidationError && wrongType?.localizedDescription.contains("'price'") == true)
        let wrongConstant = try Self.error(stack, update(["stamp": NSExpression(forConstantValue: "today")]))
        #expect(wrongConstant?.code == NSManagedObjectValidationError)
        let unknownKeyPath = try Self.error(stack, update(["price": NSExpression(forKeyPath: "cost")]))
        #expect(unknownKeyPath?.code == NSCoreDataError && unknownKeyPath?.localizedDescription.contains("cost") == true)
        let relationship = try Self.error(stack, update(["author": NSNull()], entity: "Book"))
        #expect(relationship?.code == NSCoreDataError && relationship?.localizedDescription.contains("relationship") == true)
        let empty = try Self.error(stack, update(nil))
        #expect(empty?.code == NSCoreDataError && empty?.localizedDescription.contains("propertiesToUpdate") == true)
        let badPredicate = update(["rating": 1])
        badPredicate.predicate = NSPredicate(format: "colour == 1")
        #expect(try Self.error(stack, badPredicate)?.localizedDescription.contains("colour") == true)
        // An expression that fails on some row fails the whole request before any row changes.
        let division = try Self.error(stack, update(["price": NSExpression(format: "10 / (price - 1)")]))
        #expect(division?.domain == NSCocoaErrorDomain && division?.code == NSCoreDataError)
        let expressionType = try Self.error(stack, update(["rating": NSExpression(forFunction: "uppercase:", arguments: [NSExpression(forKeyPath: "name")])]))
        #expect(expressionType?.code == NSManagedObjectValidationError)
        #expect(try stack.fetch("Item").map { $0.value(forKey: "price") as? Double } == [0, 1, 2])
        #expect(try stack.fetch("Item").map { $0.value(forKey: "rating") as? Int } == [0, 1, 2])
    }

    @Test(arguments: StoreKind.batchCapable)
    func badDeleteRequests(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        try stack.seedItems(2)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        fetch.predicate = NSPredicate(format: "nmae == %@", "x")
        let unknownKey = try Self.error(stack, NSBatchDeleteRequest(fetchRequest: fetch))
        #expect(unknownKey?.domain == NSCocoaErrorDomain && unknownKey?.localizedDescription.contains("nmae") == true)
        let missing = try Self.error(stack, NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Nothing")))
        #expect(missing?.code == NSCoreDataError)
        #expect(try stack.count("Item") == 2)
    }

    @Test func aContextWithoutACoordinatorCannotExecute() {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        let error = context.performAndWait { caughtError { try context.execute(NSBatchDeleteRequest(objectIDs: [])) } }
        #expect(error?.code == NSPersistentStoreOperationError)
    }
}
