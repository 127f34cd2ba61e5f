import Foundation
import Testing

@testable import OpenCoreData

/// A model that goes away takes its entities and properties along, also when objects were made of them (an entity
/// and its objects' layout refer to each other), while objects still alive keep their entity. Found by
/// AddressSanitizer's leak checker: every entity that had objects outlived its model.
@Suite struct ModelLifetimeTests {
    /// Weak references to a model's parts.
    final class Watched {
        weak var model: NSManagedObjectModel?
        weak var entity: NSEntityDescription?
        weak var attribute: NSPropertyDescription?
        weak var layout: EntityLayout?
    }

    /// Makes a Moody model, runs `use` on it, and returns weak references to its Mood entity and what hangs on it.
    static func watch(_ use: (NSManagedObjectModel) throws -> Void) rethrows -> Watched {
        let watched = Watched()
        try { () throws -> Void in
            let model = MoodyModel.make()
            let mood = model.entitiesByName["Mood"]!
            watched.model = model
            watched.entity = mood
            watched.attribute = mood.propertiesByName["rating"]
            try use(model)
            watched.layout = mood.layout
        }()
        return watched
    }

    @Test func aModelGoesAwayWithItsEntitiesAfterObjectsWereMade() throws {
        // Objects without a context.
        let loose = Self.watch { model in
            let entity = model.entitiesByName["Mood"]!
            for _ in 0..<3 { _ = NSManagedObject(entity: entity, insertInto: nil) }
        }
        #expect(loose.model == nil)
        #expect(loose.entity == nil, "the entity outlived its model")
        #expect(loose.attribute == nil && loose.layout == nil)

        // A stack on an SQLite store: objects inserted, saved, fetched, and the model read back from the store's cache.
        let directory = try TemporaryStoreDirectory()
        let url = directory.url.appendingPathComponent("Lifetime.sqlite")
        let stored = try Self.watch { model in
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                for index in 0..<10 {
                    let mood = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: context)
                    mood.setValue(Int16(index % 6), forKey: "rating")
                    mood.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "date")
                }
                try context.save()
                context.reset()
                #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Mood")) == 10)
            }
            try coordinator.remove(coordinator.persistentStores[0])
        }
        #expect(stored.model == nil && stored.entity == nil && stored.attribute == nil && stored.layout == nil, "the stack's model outlived it")

        weak var cachedEntity: NSEntityDescription?
        try { () throws -> Void in
            let model = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url)
            let mood = try #require(model.entitiesByName["Mood"])
            _ = NSManagedObject(entity: mood, insertInto: nil)
            cachedEntity = mood
        }()
        #expect(cachedEntity == nil, "the model read from the store's cache outlived its use")
    }

    @Test func anObjectKeepsItsEntityAfterItsModelIsGone() throws {
        var object: NSManagedObject?
        let watched = Self.watch { model in
            object = NSManagedObject(entity: model.entitiesByName["Mood"]!, insertInto: nil)
        }
        #expect(watched.model == nil)
        #expect(watched.entity != nil, "the object's entity lives as long as the object")
        #expect(object?.entity.name == "Mood")
        object?.setValue(Int16(3), forKey: "rating")
        #expect(object?.value(forKey: "rating") as? Int16 == 3)
        object = nil
        #expect(watched.entity == nil, "and goes with it")
    }
}

/// Caches keyed by an entity's address must not hand a freed entity's answers to a new entity at the same address
/// (entities now go away with their models; the class registry kept the class of the first one).
@Suite struct EntityAddressReuseTests {
    @Test func aNewEntityAtAFreedEntitysAddressGetsItsOwnClass() throws {
        NSManagedObjectModel.registerManagedObjectClasses([Mood.self, Country.self, Continent.self, GeographicRegion.self])
        var address: UInt = 0
        do {
            let model = MoodyModel.make()
            let mood = try #require(model.entitiesByName["Mood"])
            #expect(ManagedObjectClassRegistry.managedObjectClass(for: mood) == Mood.self)
            address = UInt(bitPattern: ObjectIdentifier(mood))
        }
        // The freed entity's memory is usually the next of its size that this thread allocates.
        var made: [NSEntityDescription] = []
        var reused: NSEntityDescription?
        for _ in 0..<256 {
            let entity = NSEntityDescription()
            entity.name = "Plain"
            made.append(entity)
            if UInt(bitPattern: ObjectIdentifier(entity)) == address { reused = entity; break }
        }
        guard let reused else {
            // (Under AddressSanitizer freed memory is held back, so the address is not reused.)
            print("EntityAddressReuseTests: the freed entity's address was not reused in 256 allocations")
            return
        }
        #expect(ManagedObjectClassRegistry.managedObjectClass(for: reused) == NSManagedObject.self, "the new entity got the freed entity's class")
    }
}
