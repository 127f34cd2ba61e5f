import OpenCoreData
import Testing

/// Fetch behaviour that code written for Apple's Core Data relies on: the `"objectID"` column of dictionary results,
/// and how Apple's SQLite store compares numbers with string attributes (SQLite's column affinity).
@Suite("Fetching as Apple's stores do: objectID columns, numbers against string columns")
struct FetchParityTests {
    /// A store of `kind` holding one `Person` per name, saved.
    private func people(_ names: [String], kind: StoreKind) throws -> (ConformanceStack, NSManagedObjectContext) {
        let stack = try ConformanceStack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            for name in names { context.insertObject("Person", ["name": name]) }
            try context.save()
        }
        return (stack, context)
    }

    @Test("\"objectID\" and expressionForEvaluatedObject() in propertiesToFetch give each row's object ID", arguments: [StoreKind.inMemory, .sqlite])
    func objectIDColumn(kind: StoreKind) throws {
        let (stack, context) = try people(["Ann", "Bob", "Cy"], kind: kind)
        _ = stack
        try context.performAndWait {
            let objects = NSFetchRequest<NSManagedObject>(entityName: "Person")
            var idsByName: [String: NSManagedObjectID] = [:]
            for person in try context.fetch(objects) { idsByName[person.value(forKey: "name") as! String] = person.objectID }

            let evaluated = NSExpressionDescription()
            evaluated.name = "me"
            evaluated.expression = NSExpression.expressionForEvaluatedObject()
            evaluated.expressionResultType = .objectIDAttributeType
            let request = NSFetchRequest<NSDictionary>(entityName: "Person")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["objectID", "name", evaluated]
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let rows = try context.fetch(request)
            #expect(rows.count == 3)
            for row in rows {
                let name = try #require(row["name"] as? String)
                #expect(row["objectID"] as? NSManagedObjectID == idsByName[name], "objectID of \(name)")
                #expect(row["me"] as? NSManagedObjectID == idsByName[name], "evaluated object of \(name)")
            }
            // The IDs lead back to the objects.
            let first = try #require(rows.first?["objectID"] as? NSManagedObjectID)
            #expect(context.object(with: first).value(forKey: "name") as? String == "Ann")
        }
    }

    /// Apple's SQLite store binds an `NSNumber` compared with a string attribute as a number; SQLite then applies the
    /// string column's TEXT affinity to it (https://www.sqlite.org/datatype3.html#type_conversions_prior_to_comparison),
    /// so `plate IN {9, 10, 11}` matches the strings "9", "10" and "11". The in-memory evaluator (and Apple's in-memory
    /// store) finds a string and a number unequal.
    @Test("numbers compared with a string attribute: SQLite's column affinity in the SQLite store, inequality in memory",
          arguments: [StoreKind.inMemory, .sqlite])
    func numbersAgainstStringColumns(kind: StoreKind) throws {
        let (stack, context) = try people(["9", "10", "11", "12", "09", "abc", "10.5"], kind: kind)
        _ = stack
        try context.performAndWait { () throws -> Void in
            func names(_ format: String, _ arguments: [Any] = []) throws -> [String] {
                try context.objects("Person", format, arguments).compactMap { $0.value(forKey: "name") as? String }.sorted()
            }
            func expected(sqlite: [String], memory: [String]) -> [String] { kind == .sqlite ? sqlite : memory }
            #expect(try names("name IN {9, 10, 11}") == expected(sqlite: ["10", "11", "9"], memory: []))
            #expect(try names("name IN %@", [[NSNumber(value: 9), NSNumber(value: 12)]]) == expected(sqlite: ["12", "9"], memory: []))
            #expect(try names("name == 9") == expected(sqlite: ["9"], memory: []))
            #expect(try names("name == %@", [NSNumber(value: 10.5)]) == expected(sqlite: ["10.5"], memory: []))
            #expect(try names("name != 9") == expected(sqlite: ["09", "10", "10.5", "11", "12", "abc"], memory: ["09", "10", "10.5", "11", "12", "9", "abc"]))
            // Strings still compare as strings in both stores.
            #expect(try names("name IN {'9', '10'}") == ["10", "9"])
        }
    }
}
