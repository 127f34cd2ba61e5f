import Testing

@testable import OpenCoreData

/// Every step of a fetch's key paths is checked against the model before any SQL runs, as Apple's SQLite store does
/// ("keypath … not found in entity …", which Apple raises and OpenCoreData throws as `NSCoreDataError`, 134060): a
/// relationship leads to its destination, a collection operator may only follow a to-many relationship, and after an
/// attribute only `length` (strings, binary data) or a composite attribute's element may come.
@Suite struct FetchKeyPathValidationTests {
    /// Key paths that name nothing, per entity of the batch model, each refused with no SQL run.
    static let refused: [(entity: String, keyPath: String)] = [
        ("Item", "rating.a.b.c"),                        // keys after a number
        ("Item", "name.length.x"),                       // a key after `length`
        ("Item", "name.uppercaseString"),                // a string key other than `length`
        ("Item", "stamp.timeIntervalSinceReferenceDate"),  // a key after a date
        ("Item", "payload.length.x"),
        ("Item", "rating.length"),                       // `length` of a number
        ("Item", "@count"),                              // an operator without a collection
        ("Item", "name.@count"),
        ("Item", "@sum.rating"),
        ("Item", "SELF.nope"),
        ("Author", "books.title.x"),                     // a key after an attribute of the destination
        ("Author", "books.nope"),
        ("Author", "books.@count.x"),                    // nothing follows @count
        ("Author", "books.@sum"),                        // @sum needs the members' key
        ("Author", "books.@sum.nope"),
        ("Author", "books.@max.author"),                 // an aggregate of objects
        ("Author", "books.@distinctUnionOfObjects.title"),
        ("Author", "books.@median.pages"),
        ("Book", "author.@count"),                       // an operator after a to-one relationship
        ("Book", "author.name.length.x"),
        ("Book", "author.books.title.x"),
    ]

    /// Comparisons that use each key path: in a predicate (`%K`), inside a SUBQUERY, and as a sort key.
    static func requests(_ entity: String, _ keyPath: String) -> [(String, NSFetchRequest<NSManagedObject>)] {
        let compared = NSFetchRequest<NSManagedObject>(entityName: entity)
        compared.predicate = NSPredicate(format: "%K == 1", keyPath)
        let sorted = NSFetchRequest<NSManagedObject>(entityName: entity)
        sorted.sortDescriptors = [NSSortDescriptor(key: keyPath, ascending: true)]
        var requests = [("predicate", compared), ("sort", sorted)]
        if entity == "Book" {
            // The same key path on the members of a SUBQUERY over the tags' books.
            let subquery = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            subquery.predicate = NSPredicate(format: "SUBQUERY(books, $b, $b.\(keyPath) == 1).@count > 0")
            requests.append(("SUBQUERY", subquery))
        }
        return requests
    }

    @Test func everyStepIsCheckedBeforeAnySQLRuns() throws {
        let (stack, _, log) = try SQLInjectionTests.stack()
        try Self.seed(stack)
        var tried = 0
        try stack.run { context in
            for (entity, keyPath) in Self.refused {
                for (place, request) in Self.requests(entity, keyPath) {
                    tried += 1
                    log.removeAll()
                    let error = #expect(throws: NSError.self, "\(entity) \(keyPath) in a \(place)") { try context.fetch(request) }
                    #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSCoreDataError, "\(entity) \(keyPath) in a \(place): \(String(describing: error))")
                    #expect((error?.userInfo["NSUnderlyingException"] as? String)?.hasPrefix("keypath") == true, "\(String(describing: error))")
                    #expect(SQLInjectionTests.statements(log).isEmpty, "\(entity) \(keyPath) in a \(place) ran SQL: \(SQLInjectionTests.statements(log))")
                }
            }
        }
        print("Key-path validation: \(Self.refused.count) key paths in \(tried) requests, every one refused before any SQL")
    }

    @Test func keyPathsAppleAcceptsStillFetchWhatTheEvaluatorSelects() throws {
        let (stack, _, _) = try SQLInjectionTests.stack()
        try Self.seed(stack)
        let accepted: [(String, String)] = [
            ("Item", "name.length > 5"),
            ("Item", "payload.length >= 3"),
            ("Item", "SELF.name.length == 4"),
            ("Author", "books.@count >= 2"),
            ("Author", "books.@sum.pages > 150"),
            ("Author", "books.@avg.pages > 60"),
            ("Author", "books.@min.title.length == 6"),
            ("Author", "books.@max.publisher.name == 'North'"),
            ("Author", "ANY books.title == 'Dunes'"),
            ("Book", "ANY tags.name == 'calm'"),
            ("Author", "SUBQUERY(books, $b, $b.title.length > 6).@count > 0"),
            ("Book", "author.name.length == 3"),
            ("Book", "author.books.@count == 1"),
        ]
        try stack.run { context in
            for (entity, format) in accepted {
                let predicate = NSPredicate(format: format)
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                request.predicate = predicate
                let fetched = Set(try context.fetch(request).map(\.objectID))
                let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
                let evaluated = Set(all.filter { predicate.evaluate(with: $0) }.map(\.objectID))
                #expect(fetched == evaluated, "\(entity) \(format)")
                #expect(!fetched.isEmpty && fetched.count < all.count, "\(entity) \(format) selects some objects, not all (\(fetched.count) of \(all.count))")
            }
        }
    }

    @Test func compositeAttributesAreFollowedIntoTheirElements() throws {
        let entity = NSEntityDescription()
        entity.name = "Place"
        let latitude = NSAttributeDescription()
        latitude.name = "latitude"
        latitude.attributeType = .doubleAttributeType
        let label = NSAttributeDescription()
        label.name = "label"
        label.attributeType = .stringAttributeType
        let location = NSCompositeAttributeDescription()
        location.name = "location"
        location.elements = [latitude, label]
        entity.properties = [location]
        for path in ["location", "location.latitude", "location.label", "location.label.length"] {
            #expect(throws: Never.self, "\(path)") { try FetchKeyPathValidation.validateKeyPath(path, entity: entity, context: "predicate") }
        }
        for path in ["location.altitude", "location.latitude.x", "location.latitude.length", "location.@count"] {
            #expect(throws: NSError.self, "\(path)") { try FetchKeyPathValidation.validateKeyPath(path, entity: entity, context: "predicate") }
        }
    }

    /// Items with names of several lengths and payloads; three authors with books of several lengths, publishers and tags.
    static func seed(_ stack: BatchStack) throws {
        try stack.run { context in
            for (index, name) in ["ab", "abcd", "abcdef", "abcdefgh"].enumerated() {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(name, forKey: "name")
                item.setValue(Int32(index), forKey: "rating")
                item.setValue(Data(repeating: 7, count: index + 1), forKey: "payload")
            }
            let north = NSEntityDescription.insertNewObject(forEntityName: "Publisher", into: context)
            north.setValue("North", forKey: "name")
            let south = NSEntityDescription.insertNewObject(forEntityName: "Publisher", into: context)
            south.setValue("South", forKey: "name")
            let calm = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            calm.setValue("calm", forKey: "name")
            let loud = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            loud.setValue("loud", forKey: "name")
            let shelves: [(String, [(String, Int32, NSManagedObject, NSManagedObject)])] = [
                ("Ann", [("Dunes", 40, north, calm), ("Forest", 90, north, loud)]),
                ("Bartholomew", [("Rivers", 200, south, loud)]),
                ("Cy", [("Lake", 30, south, loud), ("Mountain", 50, south, loud), ("Sea", 20, north, loud)]),
            ]
            for (name, books) in shelves {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue(name, forKey: "name")
                for (title, pages, publisher, tag) in books {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue(title, forKey: "title")
                    book.setValue(pages, forKey: "pages")
                    book.setValue(author, forKey: "author")
                    book.setValue(publisher, forKey: "publisher")
                    book.mutableSetValue(forKey: "tags").add(tag)
                }
            }
            try context.save()
        }
    }
}
