import Foundation
import Testing

@testable import OpenCoreData

/// The SQLite fetch compiler, checked on both the SQL it writes (bound parameters only, no in-memory fallback)
/// and the rows it returns (equal to hand-computed answers and to the in-memory store's).
///
/// Data: shelves A (items pen 1.5×10 [red, blue], ink 7×0 [red]) and B (items cup 3×5 [], Pad 2.25×nil [blue,
/// green]); shelf C has no items.
@Suite("SQLite fetch compiler: SQL and rows")
struct SQLiteFetchCompilerTests {
    static func model() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        func relationship(_ name: String, _ destination: NSEntityDescription, toMany: Bool) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = destination
            relationship.maxCount = toMany ? 0 : 1
            return relationship
        }
        let shelf = NSEntityDescription(), item = NSEntityDescription(), tag = NSEntityDescription()
        shelf.name = "Shelf"
        item.name = "Item"
        tag.name = "Tag"
        let items = relationship("items", item, toMany: true), onShelf = relationship("shelf", shelf, toMany: false)
        items.inverseRelationship = onShelf
        onShelf.inverseRelationship = items
        let tags = relationship("tags", tag, toMany: true), tagged = relationship("items", item, toMany: true)
        tags.inverseRelationship = tagged
        tagged.inverseRelationship = tags
        shelf.properties = [attribute("name", .stringAttributeType), items]
        item.properties = [attribute("name", .stringAttributeType), attribute("price", .doubleAttributeType), attribute("qty", .integer32AttributeType), onShelf, tags]
        tag.properties = [attribute("name", .stringAttributeType), tagged]
        let model = NSManagedObjectModel()
        model.entities = [shelf, item, tag]
        return model
    }

    /// A context on a store of `type` holding the data above.
    static func context(_ type: String, model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("compiler-\(UUID().uuidString).sqlite")
        _ = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: type == NSSQLiteStoreType ? url : nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let a = insert("Shelf", ["name": "A"]), b = insert("Shelf", ["name": "B"])
            _ = insert("Shelf", ["name": "C"])
            let red = insert("Tag", ["name": "red"]), blue = insert("Tag", ["name": "blue"]), green = insert("Tag", ["name": "green"])
            let pen = insert("Item", ["name": "pen", "price": 1.5, "qty": 10, "shelf": a])
            let ink = insert("Item", ["name": "ink", "price": 7.0, "qty": 0, "shelf": a])
            _ = insert("Item", ["name": "cup", "price": 3.0, "qty": 5, "shelf": b])
            let pad = insert("Item", ["name": "Pad", "price": 2.25, "shelf": b])
            pen.setValue(NSSet(array: [red, blue]), forKey: "tags")
            ink.setValue(NSSet(array: [red]), forKey: "tags")
            pad.setValue(NSSet(array: [blue, green]), forKey: "tags")
            try context.save()
        }
        return context
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var entity: String
        var format: String
        /// Fragments the WHERE clause must contain.
        var sql: [String]
        /// The names of the matching objects, sorted.
        var names: [String]
        /// Where Apple's in-memory evaluation differs from its SQL (nil compared with `!=`), the in-memory names.
        var memoryNames: [String]? = nil
        var testDescription: String { format }
    }

    static let cases: [Case] = [
        Case(entity: "Item", format: "price < 3", sql: ["t0.ZPRICE < ?1"], names: ["Pad", "pen"]),
        Case(entity: "Item", format: "qty != 0", sql: ["t0.ZQTY != ?1"], names: ["cup", "pen"], memoryNames: ["Pad", "cup", "pen"]),
        Case(entity: "Item", format: "name ==[c] 'PAD'", sql: ["OCD_STRING_MATCH(0, 1, t0.ZNAME, ?1) = 1"], names: ["Pad"]),
        Case(entity: "Item", format: "name <[c] 'o'", sql: ["OCD_STRING_MATCH(6, 1, t0.ZNAME, ?1) = 1"], names: ["cup", "ink"]),
        Case(entity: "Item", format: "name BEGINSWITH[n] 'p'", sql: ["(t0.ZNAME >= ?1 AND t0.ZNAME < ?2)"], names: ["pen"]),
        Case(entity: "Item", format: "shelf.name == 'A'", sql: ["LEFT JOIN ZSHELF", ".ZNAME = ?1"], names: ["ink", "pen"]),
        Case(entity: "Shelf", format: "ANY items.price > 5", sql: ["EXISTS (SELECT 1 FROM ZITEM", "ZSHELF = t0.Z_PK", "ZPRICE > ?1"], names: ["A"]),
        // Pad's qty is nil: a member without a value neither passes nor fails ALL (Apple's SQL; KVC drops nil).
        Case(entity: "Shelf", format: "ALL items.qty > 0", sql: ["NOT EXISTS", "IS NOT NULL AND NOT IFNULL("], names: ["B", "C"]),
        Case(entity: "Shelf", format: "NONE items.name == 'cup'", sql: ["NOT (EXISTS"], names: ["A", "C"]),
        Case(entity: "Item", format: "ANY tags.name == 'blue'", sql: ["EXISTS (SELECT 1 FROM ZTAG", "JOIN Z_"], names: ["Pad", "pen"]),
        Case(entity: "Shelf", format: "SUBQUERY(items, $i, ANY $i.tags.name == 'green').@count > 0", sql: ["SELECT COUNT(*) FROM ZITEM", "EXISTS (SELECT 1 FROM ZTAG"], names: ["B"]),
        Case(entity: "Shelf", format: "items.@count == 2", sql: ["(SELECT COUNT(*) FROM ZITEM"], names: ["A", "B"]),
        Case(entity: "Shelf", format: "items.@sum.price > 8", sql: ["TOTAL("], names: ["A"]),
        Case(entity: "Shelf", format: "items.@avg.price < 3", sql: ["COALESCE(AVG("], names: ["B", "C"]),
        Case(entity: "Shelf", format: "items.@max.qty == 10", sql: ["MAX("], names: ["A"]),
        Case(entity: "Shelf", format: "SUBQUERY(items, $i, $i.price > 2 AND $i.qty > 0).@count > 0", sql: ["SELECT COUNT(*) FROM ZITEM"], names: ["B"]),
        Case(entity: "Item", format: "'red' IN tags.name", sql: ["EXISTS (SELECT 1 FROM ZTAG"], names: ["ink", "pen"]),
        Case(entity: "Item", format: "qty != nil AND price * qty > 10", sql: ["(t0.ZPRICE * t0.ZQTY) > ?1"], names: ["cup", "pen"]),
        Case(entity: "Item", format: "price / 2 >= 1.5", sql: ["(CAST(t0.ZPRICE AS REAL) / ?1) >= ?2"], names: ["cup", "ink"]),
        Case(entity: "Item", format: "name IN {'pen', 'cup', nil}", sql: ["t0.ZNAME IN (?1, ?2)", "IS NULL"], names: ["cup", "pen"]),
        Case(entity: "Item", format: "name MATCHES '[a-z]{3}'", sql: ["OCD_STRING_MATCH(5, 0"], names: ["cup", "ink", "pen"]),
        Case(entity: "Item", format: "price BETWEEN {2, 3}", sql: ["t0.ZPRICE BETWEEN ?1 AND ?2"], names: ["Pad", "cup"]),
    ]

    @Test("each predicate compiles to SQL without fallback and returns the hand-computed rows in both stores", arguments: cases)
    func compiles(_ testCase: Case) throws {
        let model = Self.model()
        let sqlite = try Self.context(NSSQLiteStoreType, model: model)
        let memory = try Self.context(NSInMemoryStoreType, model: model)
        let predicate = NSPredicate(format: testCase.format)

        // The SQL: every fragment, no value spliced in.
        let store = try #require(sqlite.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        let entity = try #require(model.entitiesByName[testCase.entity])
        var compiler = SQLiteFetchCompiler(schema: store.schema, entity: entity)
        let condition = try compiler.condition(predicate)
        let sql = compiler.fromClause + " WHERE " + condition
        for fragment in testCase.sql {
            #expect(sql.contains(fragment), "\(fragment) in \(sql)")
        }
        #expect(!sql.contains("'"), "values are bound, not spliced: \(sql)")

        // The rows, in both stores.
        for context in [sqlite, memory] {
            let names = try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: testCase.entity)
                request.predicate = predicate
                return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
            }
            let type = context.persistentStoreCoordinator!.persistentStores[0].type
            #expect(names == (type == NSInMemoryStoreType ? testCase.memoryNames ?? testCase.names : testCase.names), "\(type)")
        }
    }
}
