import Foundation
import Testing
@testable import OpenCoreData

/// Dictionary fetches that group and aggregate run in SQL on the SQLite store (`GROUP BY`), and per-row dictionary
/// fetches are built from the fetched rows: neither realizes an object, and both give what the computation over
/// objects gives — checked on the SQL and the rows, and against the objects' answer on generated data.
@Suite("Dictionary results from the store")
struct DictionaryResultsFromStoreTests {
    /// Sale {region String?, units Int32?, price Double?, day Date?, flag Bool, big Int64}.
    static let model: NSManagedObjectModel = {
        let sale = NSEntityDescription()
        sale.name = "Sale"
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            return attribute
        }
        sale.properties = [
            attribute("region", .stringAttributeType), attribute("units", .integer32AttributeType),
            attribute("price", .doubleAttributeType), attribute("day", .dateAttributeType),
            attribute("flag", .booleanAttributeType, optional: false), attribute("big", .integer64AttributeType, optional: false),
        ]
        let model = NSManagedObjectModel()
        model.entities = [sale]
        return model
    }()

    /// A context on a new store of `type` holding `count` generated sales (the same for the same seed).
    static func context(_ type: String, count: Int = 300, seed: UInt64 = 7) throws -> (NSManagedObjectContext, NSPersistentStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = type == NSSQLiteStoreType ? FileManager.default.temporaryDirectory.appendingPathComponent("aggregates-\(UUID().uuidString).sqlite") : nil
        let store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var random = DifferentialRNG(seed: seed)
        try context.performAndWait {
            for index in 0..<count {
                let sale = NSManagedObject(entity: model.entitiesByName["Sale"]!, insertInto: context)
                if random.chance(0.9) { sale.setValue(random.pick(["north", "south", "east", "west", "Nord"]), forKey: "region") }
                if random.chance(0.85) { sale.setValue(random.int(-5...40), forKey: "units") }
                if random.chance(0.85) { sale.setValue(Double(random.int(0...100_000)) / 100, forKey: "price") }
                if random.chance(0.8) { sale.setValue(Date(timeIntervalSinceReferenceDate: Double(random.int(0...1_000_000))), forKey: "day") }
                sale.setValue(random.chance(0.5), forKey: "flag")
                sale.setValue(Int64(random.int(0...1_000)) * 1_000_000 + Int64(index), forKey: "big")   // unique
            }
            try context.save()
            context.reset()
        }
        return (context, store)
    }

    static func expression(_ function: String, _ key: String, name: String, type: NSAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: key)])
        description.expressionResultType = type
        return description
    }

    static func fetch(_ context: NSManagedObjectContext, entity: String = "Sale", configure: (NSFetchRequest<NSDictionary>) -> Void) throws -> [NSDictionary] {
        try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: entity)
            request.resultType = .dictionaryResultType
            configure(request)
            return try context.fetch(request)
        }
    }

    @Test func aGroupedAggregateIsOneGroupByQueryWithBoundValuesAndRealizesNoObject() throws {
        let (context, store) = try Self.context(NSSQLiteStoreType, count: 40)
        let log = SQLiteTestStack.recordSQL(of: try #require(store as? SQLiteStore), level: 2)
        let results = try Self.fetch(context) { request in
            request.predicate = NSPredicate(format: "units >= %d", 3)
            request.propertiesToFetch = ["region", Self.expression("count:", "units", name: "n", type: .integer64AttributeType),
                                         Self.expression("sum:", "units", name: "total", type: .integer64AttributeType)]
            request.propertiesToGroupBy = ["region"]
            request.sortDescriptors = [NSSortDescriptor(key: "region", ascending: true)]
        }
        let statements = log.messages.filter { $0.hasPrefix("sql: ") }
        #expect(statements == ["sql: SELECT t0.ZREGION, COUNT(t0.ZUNITS), SUM(t0.ZUNITS) FROM ZSALE t0 WHERE t0.ZUNITS >= ?1 GROUP BY t0.ZREGION ORDER BY t0.ZREGION ASC"])
        #expect(context.performAndWait { context.registeredObjects.isEmpty }, "no Sale was made")
        // The rows, read with plain SQL.
        let sqlite = try #require(store as? SQLiteStore)
        let expected = try context.persistentStoreCoordinator!.withLock {
            try sqlite.connection.fetchAll("SELECT ZREGION, COUNT(ZUNITS), SUM(ZUNITS) FROM ZSALE WHERE ZUNITS >= 3 GROUP BY ZREGION ORDER BY ZREGION")
        }
        #expect(results.count == expected.count)
        for (result, row) in zip(results, expected) {
            if case .text(let region) = row[0] { #expect(result["region"] as? String == region) } else { #expect(result["region"] == nil) }
            if case .integer(let count) = row[1] { #expect((result["n"] as? NSNumber)?.int64Value == count) }
            if case .integer(let sum) = row[2] { #expect((result["total"] as? NSNumber)?.int64Value == sum) }
        }
    }

    @Test func aggregatesOverNoRowsGiveOneResultAsOverObjects() throws {
        for type in [NSSQLiteStoreType, NSInMemoryStoreType] {
            let (context, _) = try Self.context(type, count: 5)
            let results = try Self.fetch(context) { request in
                request.predicate = NSPredicate(format: "units > 1000")
                request.propertiesToFetch = [Self.expression("count:", "units", name: "n", type: .integer64AttributeType),
                                             Self.expression("sum:", "units", name: "total", type: .integer64AttributeType),
                                             Self.expression("max:", "price", name: "top", type: .doubleAttributeType)]
            }
            #expect(results.count == 1, "\(type)")
            #expect((results.first?["n"] as? NSNumber)?.intValue == 0, "\(type)")
            #expect((results.first?["total"] as? NSNumber)?.intValue == 0, "\(type): a sum of nothing is 0")
            #expect(results.first?["top"] == nil, "\(type): no maximum")
        }
    }

    @Test func unsavedChangesAreCountedThroughObjects() throws {
        let (context, _) = try Self.context(NSSQLiteStoreType, count: 10)
        let counts = try context.performAndWait {
            let sale = NSManagedObject(entity: Self.model.entitiesByName["Sale"]!, insertInto: context)
            sale.setValue("pending", forKey: "region")
            sale.setValue(1, forKey: "units")
            let request = NSFetchRequest<NSDictionary>(entityName: "Sale")
            request.resultType = .dictionaryResultType
            request.predicate = NSPredicate(format: "region == %@", "pending")
            request.propertiesToFetch = ["region", Self.expression("count:", "units", name: "n", type: .integer64AttributeType)]
            request.propertiesToGroupBy = ["region"]
            return try context.fetch(request).map { ($0["n"] as? NSNumber)?.intValue }
        }
        #expect(counts == [1], "the context's unsaved insertion is in the answer")
    }

    @Test func whatSQLCannotSayIsComputedOverObjects() throws {
        let (context, store) = try Self.context(NSSQLiteStoreType, count: 30)
        let (memory, _) = try Self.context(NSInMemoryStoreType, count: 30)
        let log = SQLiteTestStack.recordSQL(of: try #require(store as? SQLiteStore), level: 1)
        let configure: (NSFetchRequest<NSDictionary>) -> Void = { request in
            // median: is not a store function; the groups are still right.
            request.propertiesToFetch = ["flag", Self.expression("median:", "units", name: "median", type: .doubleAttributeType)]
            request.propertiesToGroupBy = ["flag"]
            request.sortDescriptors = [NSSortDescriptor(key: "flag", ascending: true)]
        }
        let sql = try Self.fetch(context, configure: configure), objects = try Self.fetch(memory, configure: configure)
        #expect(Self.same(sql, objects))
        let statements = log.messages.filter { $0.hasPrefix("sql: ") }
        #expect(statements.count == 1 && !statements[0].contains("GROUP BY") && statements[0].contains("t0.Z_PK"), "computed over the fetched rows: \(statements)")
    }

    /// Generated requests: the SQLite store's answer (in SQL, no object made) equals the in-memory store's (over
    /// objects) on the same generated data. `OPENCOREDATA_AGGREGATE_CASES` sets the number of requests (200).
    @Test func sqlAndObjectsAgreeOnGeneratedRequests() throws {
        let (sqlite, _) = try Self.context(NSSQLiteStoreType)
        let (memory, _) = try Self.context(NSInMemoryStoreType)
        let cases = ProcessInfo.processInfo.environment["OPENCOREDATA_AGGREGATE_CASES"].flatMap(Int.init) ?? 200
        var random = DifferentialRNG(seed: 11)
        let groupable = ["region", "flag", "units"]
        let aggregates: [(String, [String], NSAttributeType)] = [
            ("count:", ["units", "price", "day", "region", "flag"], .integer64AttributeType),
            ("sum:", ["units", "price", "big"], .undefinedAttributeType),
            ("average:", ["units", "price"], .doubleAttributeType),
            ("min:", ["units", "price", "day", "big"], .undefinedAttributeType),
            ("max:", ["units", "price", "day"], .undefinedAttributeType),
        ]
        let predicates = [nil, "units > 10", "region == 'north' OR price < 100", "day > %@", "NOT (flag == YES) AND units != nil", "region BEGINSWITH[c] 'n'"]
        for index in 0..<cases {
            let groupBy = random.sample(groupable, count: random.int(0...2))
            var properties: [Any] = groupBy
            for position in 0..<random.int(1...3) {
                let (function, keys, type) = random.pick(aggregates)
                properties.append(Self.expression(function, random.pick(keys), name: "a\(position)", type: random.chance(0.3) ? .undefinedAttributeType : type))
            }
            let format = random.pick(predicates)
            // Sorted by every grouped key (one order), by the first only (ties), or not at all (any order).
            let sortedKeys = groupBy.isEmpty || random.chance(0.3) ? [] : random.chance(0.7) ? groupBy : [groupBy[0]]
            let sorted = sortedKeys == groupBy && !groupBy.isEmpty
            let descending = groupBy.map { _ in random.chance(0.5) }
            let limit = random.chance(0.2) ? random.int(1...4) : 0
            let configure: (NSFetchRequest<NSDictionary>) -> Void = { request in
                request.predicate = format.map { NSPredicate(format: $0, Date(timeIntervalSinceReferenceDate: 400_000) as NSDate) }
                request.propertiesToFetch = properties
                if !groupBy.isEmpty { request.propertiesToGroupBy = groupBy }
                if !sortedKeys.isEmpty { request.sortDescriptors = zip(sortedKeys, descending).map { NSSortDescriptor(key: $0, ascending: !$1) } }
                request.fetchLimit = sorted ? limit : 0
            }
            let fromSQL = try Self.fetch(sqlite, configure: configure)
            let fromObjects = try Self.fetch(memory, configure: configure)
            let description = "case \(index): group by \(groupBy), \(properties.compactMap { ($0 as? NSExpressionDescription)?.expression?.description }), \(format ?? "all")\(sorted ? ", sorted" : "")"
            #expect(sqlite.performAndWait { sqlite.registeredObjects.isEmpty }, "\(description): in SQL")
            #expect(Self.same(fromSQL, fromObjects, ordered: sorted), "\(description)\n SQL: \(fromSQL)\n objects: \(fromObjects)")
            if !sortedKeys.isEmpty && !sorted {   // ties: the sorted keys come in the same order
                let keys = { (results: [NSDictionary]) in results.map { result in sortedKeys.map { "\(result[$0] ?? "nil")" } } }
                #expect(keys(fromSQL) == keys(fromObjects), "\(description): order by \(sortedKeys)")
            }
        }
    }

    @Test func groupsByAToOneRelationshipAreItsDestinationsInSQL() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("group-by-to-one-\(UUID().uuidString).sqlite")
        let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
        let context = stack.context
        var random = DifferentialRNG(seed: 5)
        try context.performAndWait {
            let countries = (0..<4).map { code -> Country in
                let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: context) as! Country
                country.setValue(Int16(code), forKey: "numericISO3166Code")
                return country
            }
            for _ in 0..<60 {
                let mood = Mood(context: context)
                mood.rating = Int16(random.int(0...5))
                mood.country = random.chance(0.85) ? random.pick(countries) : nil
            }
            try context.save()
            context.reset()
        }
        let log = SQLiteTestStack.recordSQL(of: try #require(stack.coordinator.persistentStores.first as? SQLiteStore), level: 1)
        let configure: (NSFetchRequest<NSDictionary>) -> Void = { request in
            request.predicate = NSPredicate(format: "rating > %d", 0)
            request.propertiesToFetch = ["country", Self.expression("count:", "rating", name: "n", type: .integer64AttributeType),
                                         Self.expression("average:", "rating", name: "average", type: .doubleAttributeType)]
            request.propertiesToGroupBy = ["country"]
        }
        let fromSQL = try Self.fetch(context, entity: "Mood", configure: configure)
        #expect(log.messages.contains { $0.hasPrefix("sql: ") && $0.contains("GROUP BY t0.ZCOUNTRY") }, "\(log.messages)")
        #expect(context.performAndWait { context.registeredObjects.isEmpty }, "no Mood or Country was made")
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = context
        let fromObjects = try Self.fetch(child, entity: "Mood", configure: configure)
        #expect(fromSQL.count == 5, "four countries and no country")
        #expect(fromSQL.contains { $0["country"] == nil }, "the moods without a country are a group without the key")
        #expect(fromSQL.compactMap { $0["country"] as? NSManagedObjectID }.allSatisfy { $0.entity.name == "Country" },
                "destinations are identified by their own entity (Country, a sub-entity of GeographicRegion)")
        #expect(Self.same(fromSQL, fromObjects, ordered: false), "SQL: \(fromSQL)\n objects: \(fromObjects)")
    }

    // MARK: One dictionary per row

    @Test func perRowDictionariesAreBuiltFromRowsWithoutObjects() throws {
        let (context, _) = try Self.context(NSSQLiteStoreType, count: 20)
        let results = try Self.fetch(context) { request in
            request.propertiesToFetch = ["region", "units", "day", "objectID"]
            request.sortDescriptors = [NSSortDescriptor(key: "big", ascending: true)]
        }
        #expect(results.count == 20)
        #expect(context.performAndWait { context.registeredObjects.isEmpty }, "no Sale was made")
        let objects = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Sale")
            request.sortDescriptors = [NSSortDescriptor(key: "big", ascending: true)]
            return try context.fetch(request).map { object in
                (object.objectID, object.value(forKey: "region") as? String, object.value(forKey: "units") as? Int, object.value(forKey: "day") as? Date)
            }
        }
        for (dictionary, object) in zip(results, objects) {
            #expect(dictionary["objectID"] as? NSManagedObjectID == object.0)
            #expect(dictionary["region"] as? String == object.1)
            #expect((dictionary["units"] as? NSNumber)?.intValue == object.2)
            #expect(dictionary["day"] as? Date == object.3)
        }
    }

    @Test func toOneRelationshipsAndTransformablesComeFromTheRowsAsTheObjectsGiveThem() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("row-dictionaries-\(UUID().uuidString).sqlite")
        let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
        let context = stack.context
        let expected = try context.performAndWait {
            let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: context) as! Country
            country.setValue(Int16(250), forKey: "numericISO3166Code")
            for rating in 0..<4 {
                let mood = Mood(context: context)
                mood.rating = Int16(rating)
                mood.colors = rating == 0 ? nil : [MoodColor(red: UInt8(rating), green: 2, blue: 3)]
                if rating != 3 { mood.country = country }
            }
            try context.save()
            let request = NSFetchRequest<Mood>(entityName: "Mood")
            request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
            let moods = try context.fetch(request).map { ($0.country?.objectID, $0.colors) }
            context.reset()
            return moods
        }
        let results = try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Mood")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["rating", "country", "colors"]
            request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
            return try context.fetch(request)
        }
        #expect(context.performAndWait { context.registeredObjects.isEmpty }, "no Mood or Country was made")
        #expect(results.count == expected.count)
        for (dictionary, (country, colors)) in zip(results, expected) {
            #expect(dictionary["country"] as? NSManagedObjectID == country, "a to-one as its object ID")
            #expect(dictionary["colors"] as? [MoodColor] == colors, "a transformable as its transformed value")
        }
    }

    /// Generated per-row requests: the rows' dictionaries equal those a child context computes over objects.
    @Test func rowsAndObjectsAgreeOnGeneratedPerRowRequests() throws {
        for type in [NSSQLiteStoreType, NSInMemoryStoreType] {
            let (context, _) = try Self.context(type, count: 120)
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = context   // a child computes over objects
            var random = DifferentialRNG(seed: 23)
            let keys = ["region", "units", "price", "day", "flag", "big"]
            let predicates = [nil, "units > 10", "region == 'north' OR price < 100", "day == nil", "flag == YES AND units != nil"]
            for index in 0..<40 {
                let properties: [Any] = random.sample(keys, count: random.int(1...4)) + (random.chance(0.3) ? ["objectID"] : [])
                let format = random.pick(predicates)
                let ascending = random.chance(0.5)
                let limit = random.chance(0.3) ? random.int(1...10) : 0, offset = random.chance(0.3) ? random.int(0...20) : 0
                let configure: (NSFetchRequest<NSDictionary>) -> Void = { request in
                    request.predicate = format.map { NSPredicate(format: $0) }
                    request.propertiesToFetch = properties
                    request.sortDescriptors = [NSSortDescriptor(key: "big", ascending: ascending)]   // unique: one order
                    request.fetchLimit = limit
                    request.fetchOffset = offset
                }
                let fromRows = try Self.fetch(context, configure: configure), fromObjects = try Self.fetch(child, configure: configure)
                #expect(context.performAndWait { context.registeredObjects.isEmpty }, "\(type) case \(index): from rows")
                #expect(Self.same(fromRows, fromObjects), "\(type) case \(index): \(properties), \(format ?? "all")\n rows: \(fromRows)\n objects: \(fromObjects)")
            }
        }
    }

    // MARK: Comparing results

    /// Whether two results agree: the same dictionaries (in the same order when `ordered`), numbers compared by value
    /// (reals within a relative 1e-9: SQL adds in its own order), dates within a microsecond.
    static func same(_ a: [NSDictionary], _ b: [NSDictionary], ordered: Bool = true) -> Bool {
        guard a.count == b.count else { return false }
        if ordered { return zip(a, b).allSatisfy(same) }
        var remaining = b
        for dictionary in a {
            guard let match = remaining.firstIndex(where: { same(dictionary, $0) }) else { return false }
            remaining.remove(at: match)
        }
        return true
    }

    static func same(_ a: NSDictionary, _ b: NSDictionary) -> Bool {
        guard Set(a.allKeys.map { "\($0)" }) == Set(b.allKeys.map { "\($0)" }) else { return false }
        return a.allKeys.allSatisfy { key in same(a[key]!, b[key]!) }
    }

    static func same(_ a: Any, _ b: Any) -> Bool {
        if let x = a as? Date, let y = b as? Date { return abs(x.timeIntervalSince(y)) < 1e-6 }
        if let x = a as? NSNumber, let y = b as? NSNumber {
            let integral = { (n: NSNumber) in n.doubleValue == n.doubleValue.rounded() && abs(n.doubleValue) < 9e15 }
            if integral(x) && integral(y) { return x.int64Value == y.int64Value }
            return abs(x.doubleValue - y.doubleValue) <= 1e-9 * max(1, abs(x.doubleValue), abs(y.doubleValue))
        }
        return (a as? NSObject)?.isEqual(b) ?? false
    }
}
