import struct Foundation.URL
import class Foundation.FileManager
import struct Foundation.UUID
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataPredicate

/// `entity` in predicates: every managed object's entity (key-value coding finds it, as Apple's does), compared with
/// entity descriptions (`entity == %@` matches that entity only) — and, for Swift predicates' `is` checks, with a kind
/// (the entity or its sub-entities). The SQLite store compiles it to `Z_ENT`; the in-memory store evaluates it; both
/// give the same rows.
@Suite struct EntityPredicateTests {
    /// Animal ⊃ Dog ⊃ Puppy, Animal ⊃ Cat.
    static func model() -> NSManagedObjectModel {
        func entity(_ name: String) -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            entity.managedObjectClassName = "NSManagedObject"
            return entity
        }
        let animal = entity("Animal"), dog = entity("Dog"), puppy = entity("Puppy"), cat = entity("Cat")
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        animal.properties = [name]
        animal.subentities = [dog, cat]
        dog.subentities = [puppy]
        let model = NSManagedObjectModel()
        model.entities = [animal, dog, puppy, cat]
        return model
    }

    /// A context over `type` (SQLite in a temporary directory, or in memory) with one object of each entity, saved.
    static func context(_ type: String) throws -> (NSManagedObjectContext, NSManagedObjectModel, URL) {
        let model = Self.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: directory.appendingPathComponent("zoo.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for entity in ["Animal", "Dog", "Puppy", "Cat"] {
            NSEntityDescription.insertNewObject(forEntityName: entity, into: context).setValue("a \(entity.lowercased())", forKey: "name")
        }
        try context.save()
        return (context, model, directory)
    }

    static func names(_ context: NSManagedObjectContext, _ predicate: NSPredicate) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.predicate = predicate
        return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    @Test func keyValueCodingFindsTheEntityOfEveryObject() throws {
        let (context, model, directory) = try Self.context(NSInMemoryStoreType)
        defer { try? FileManager.default.removeItem(at: directory) }
        let puppy = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Puppy")).first)
        #expect(puppy.value(forKey: "entity") as? NSEntityDescription === model.entitiesByName["Puppy"])
        #expect(NSPredicate(format: "entity == %@", model.entitiesByName["Puppy"]!).evaluate(with: puppy))
    }

    @Test(arguments: [NSSQLiteStoreType, NSInMemoryStoreType])
    func entityComparisonsMatchTheEntityItself(_ storeType: String) throws {
        let (context, model, directory) = try Self.context(storeType)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dog = model.entitiesByName["Dog"]!, cat = model.entitiesByName["Cat"]!
        #expect(try Self.names(context, NSPredicate(format: "entity == %@", dog)) == ["a dog"])
        #expect(try Self.names(context, NSPredicate(format: "entity != %@", dog)) == ["a animal", "a cat", "a puppy"])
        #expect(try Self.names(context, NSPredicate(format: "entity IN %@", [dog, cat])) == ["a cat", "a dog"])
        #expect(try Self.names(context, NSPredicate(format: "entity == %@ AND name BEGINSWITH 'a d'", dog)) == ["a dog"])
    }

    @Test(arguments: [NSSQLiteStoreType, NSInMemoryStoreType])
    func aKindMatchesTheEntityAndItsSubentities(_ storeType: String) throws {
        let (context, _, directory) = try Self.context(storeType)
        defer { try? FileManager.default.removeItem(at: directory) }
        func kind(_ name: String) -> NSPredicate {
            NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "entity"), rightExpression: NSExpression(forConstantValue: EntityKind(name: name)),
                                  modifier: .direct, type: .equalTo)
        }
        #expect(try Self.names(context, kind("Dog")) == ["a dog", "a puppy"])
        #expect(try Self.names(context, kind("Puppy")) == ["a puppy"])
        #expect(try Self.names(context, kind("Animal")).count == 4)
        #expect(try Self.names(context, NSCompoundPredicate(notPredicateWithSubpredicate: kind("Dog"))) == ["a animal", "a cat"])
        #expect(try Self.names(context, kind("Unicorn")).isEmpty, "an entity the model does not have matches nothing")
    }

    @Test func theSQLComparesTheEntityColumn() throws {
        let (context, model, directory) = try Self.context(NSSQLiteStoreType)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        let animal = try #require(model.entitiesByName["Animal"]), dog = try #require(model.entitiesByName["Dog"])
        let numbers = store.schema.mapping(for: dog).entityNumbersIncludingSubentities
        var compiler = SQLiteFetchCompiler(schema: store.schema, entity: animal)
        #expect(try compiler.condition(NSPredicate(format: "entity == %@", dog)) == "t0.Z_ENT IN (\(store.schema.number(of: dog)))")
        let kind = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "entity"), rightExpression: NSExpression(forConstantValue: EntityKind(name: "Dog")),
                                         modifier: .direct, type: .equalTo)
        #expect(numbers.count == 2)
        #expect(try compiler.condition(kind) == "t0.Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))")
    }
}
