import Foundation
import Testing

@testable import OpenCoreData

/// How long a context keeps unchanged objects (DEVIATIONS.md O13): until the end of the event that registered
/// them, then as long as someone else holds them — checked at the end of an event for the event's objects, and for
/// every object when the registry has doubled — and a changed object stays until it is saved or rolled back.
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

    @Test("reset turns the objects someone holds into detached faults and frees the others without turning them")
    func resetFaultsHeldObjectsAndFreesTheRest() throws {
        let (context, first, second) = try Self.context()
        weak var dropped: NSManagedObject?
        let kept = context.performAndWait {
            let kept = context.object(with: first)
            #expect(kept.value(forKey: "name") == nil && !kept.isFault)
            dropped = context.object(with: second)
            _ = dropped?.value(forKey: "name")
            #expect(dropped != nil, "registered objects are held until the event ends")
            context.reset()
            #expect(dropped == nil, "an object only the context held is freed by reset")
            #expect(context.registeredObjects.isEmpty)
            return kept
        }
        #expect(kept.isFault, "an object still held becomes a fault")
        #expect(kept.managedObjectContext == nil)
        #expect(context.performAndWait { context.registeredObject(for: first) } == nil)
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

    @Test("an object held past its event and dropped later is let go at the next scan of the registry")
    func objectsDroppedLaterGoAtTheNextScan() throws {
        let (context, first, _) = try Self.context()
        weak var watcher: NSManagedObject?
        var held: NSManagedObject? = context.performAndWait { context.object(with: first) }
        watcher = held
        #expect(held != nil)
        held = nil
        #expect(watcher != nil, "let go at the end of an event, not the instant the last reference goes")
        try context.performAndWait {
            // 100 new objects more than double the registry: the end of this event looks at every object.
            for _ in 0..<100 { _ = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context) }
            try context.save()
        }
        #expect(watcher == nil)
        #expect(context.performAndWait { context.registeredObjects.isEmpty }, "the saved objects nobody holds went too")
    }

    @Test("objects dropped after their event go at an event end once the scan interval has passed, without growth")
    func objectsDroppedLaterGoAfterTheScanInterval() throws {
        let (context, _, _) = try Self.context()
        var held: [NSManagedObject]? = try context.performAndWait {
            let tags = (0..<100).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context) }
            try context.save()
            return tags
        }
        weak let watcher = held?.first
        context.performAndWait {}   // the registry does not grow any more: no scan for doubling
        held = nil
        context.registryScanInterval = .zero
        #expect(watcher != nil, "still registered until an event ends")
        context.performAndWait {}
        #expect(watcher == nil, "the end of the event after the interval let the dropped objects go")
        #expect(context.performAndWait { context.registeredObjects.isEmpty })
    }

    @Test("a released fault of a batched fetch leaves its batch")
    func releasedBatchedFaultsLeaveTheirBatches() throws {
        let (context, first, second) = try Self.context()
        var held: [NSManagedObject]? = try context.performAndWait {
            // More objects than the smallest registry a full scan looks at.
            for _ in 0..<100 { _ = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context) }
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            request.fetchBatchSize = 1
            return try context.fetch(request)
        }
        #expect(held?.count == 102)
        #expect(context.performAndWait { context.faultBatches.count } == 102, "each fault waits in its batch")
        held = nil
        context.registryScanInterval = .zero
        context.performAndWait {}
        context.performAndWait {
            #expect(context.registeredObject(for: first) == nil && context.registeredObject(for: second) == nil)
            #expect(context.registeredObjects.isEmpty)
            #expect(context.faultBatches.count == 0, "the released faults' batch entries went with them")
        }
    }

    @Test("a fault of a batched fetch deleted elsewhere leaves its batch when the delete is merged")
    func batchedFaultsDeletedElsewhereLeaveTheirBatches() throws {
        let (context, first, second) = try Self.context()
        let held: [NSManagedObject] = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            request.fetchBatchSize = 1
            return try context.fetch(request)
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let note = try didSaveNotification(of: other) { other in other.delete(try other.existingObject(with: first)) }
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: note)
            #expect(context.faultBatches[first] == nil, "the deleted fault left its batch")
            #expect(context.faultBatches[second] != nil, "the other fault still waits in its own")
        }
        #expect(held.count == 2)
    }
}
