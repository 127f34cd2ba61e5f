import Foundation
import OpenCoreData
import Testing

/// How long a context keeps unchanged objects (DEVIATIONS.md O13): strongly until the end of the event that
/// registered them, weakly after it — so an object nobody else holds is let go once the event ends, and a changed
/// object stays until it is saved or rolled back.
@Suite("Registered objects' lifetime")
struct RegistrationLifetimeTests {
    static func context() throws -> (NSManagedObjectContext, NSManagedObjectID, NSManagedObjectID) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLiteFetchCompilerTests.model())
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let ids = try context.performAndWait {
            let a = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            let b = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            try context.save()
            return (a.objectID, b.objectID)
        }
        context.performAndWait { context.reset() }
        return (context, ids.0, ids.1)
    }

    @Test("an unchanged object is kept until its event ends, then only as long as someone holds it")
    func unchangedObjectsAreReleasedAfterTheEvent() throws {
        let (context, first, second) = try Self.context()
        weak var released: NSManagedObject?
        context.performAndWait {
            released = context.object(with: first)
            _ = context.object(with: second).value(forKey: "name")
            #expect(context.registeredObject(for: first) != nil, "held until the end of the event")
        }
        context.performAndWait {
            #expect(released == nil, "nobody held it after the event")
            #expect(context.registeredObject(for: first) == nil)
        }
    }

    @Test("a changed object and objects with retainsRegisteredObjects stay registered")
    func changedAndRetainedObjectsStay() throws {
        let (context, first, second) = try Self.context()
        context.performAndWait { context.object(with: first).setValue("changed", forKey: "name") }
        context.performAndWait {
            #expect(context.registeredObject(for: first)?.value(forKey: "name") as? String == "changed")
            context.retainsRegisteredObjects = true
            _ = context.object(with: second)
        }
        context.performAndWait { #expect(context.registeredObject(for: second) != nil) }
    }
}
