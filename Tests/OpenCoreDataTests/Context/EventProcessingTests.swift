import Foundation
import OpenCoreData
import Testing

/// The end of an event processed once, even when an `ObjectsDidChange` observer fetches or saves; `reset()`
/// tells observers that every object is gone.
@Suite("End-of-event processing")
struct EventProcessingTests {
    static func context() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLiteFetchCompilerTests.model())
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test("an observer that fetches does not re-process the event: every observer sees its old values, undo is registered once")
    func observerThatFetches() throws {
        let context = try Self.context()
        let tag = try context.performAndWait {
            context.undoManager = UndoManager()
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("old", forKey: "name")
            try context.save()
            context.undoManager?.removeAllActions()
            return tag
        }
        final class Seen: @unchecked Sendable { var values: [[String: Any]] = [] }   // touched on the context's queue only
        final class ObjectBox: @unchecked Sendable { let object: NSManagedObject; init(_ o: NSManagedObject) { object = o } }   // used on the context's queue only
        let seen = Seen()
        let box = ObjectBox(tag)
        var observers: [NSObjectProtocol] = []
        for _ in 0..<3 {
            observers.append(NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { _ in
                _ = try? context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
                seen.values.append(box.object.changedValuesForCurrentEvent())
            })
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        context.performAndWait { tag.setValue("new", forKey: "name") }
        #expect(seen.values.count == 3)
        #expect(seen.values.allSatisfy { $0["name"] as? String == "old" }, "\(seen.values)")
        context.performAndWait {
            context.undo()
            #expect(tag.value(forKey: "name") as? String == "old")
            #expect(context.undoManager?.canUndo == false, "one undo action for the event")
        }
    }

    @Test("reset() posts ObjectsDidChange with NSInvalidatedAllObjectsKey")
    func resetInvalidatesAll() throws {
        let context = try Self.context()
        let id = try context.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            try context.save()
            return tag.objectID
        }
        final class Box: @unchecked Sendable { var invalidated: [NSManagedObjectID]? }   // written by the observer, read after
        let box = Box()
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { note in
            box.invalidated = note.userInfo?[NSInvalidatedAllObjectsKey] as? [NSManagedObjectID]
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        context.performAndWait {
            _ = context.object(with: id)
            context.reset()
        }
        #expect(box.invalidated == [id])
    }
}
