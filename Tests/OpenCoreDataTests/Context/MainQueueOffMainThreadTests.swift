import Foundation
import OpenCoreData
import Testing

// On Linux the main queue runs off the main thread once `dispatchMain()` or an async `main` drains it (as in this
// test runner). A thread that runs a main-queue block and waits in `performAndWait` on a private context still
// holds the main queue: a main-queue parent used inside that block must run inline, as it does on the main thread.
@Suite("Main queue off the main thread")
struct MainQueueOffMainThreadTests {
    @Test func aChildSavesIntoItsMainQueueParentFromTheMainQueue() async throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let inserted = try await MainActor.run { () throws -> Int in
            let main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            main.persistentStoreCoordinator = coordinator
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = main
            try child.performAndWait {
                let mood = Mood(context: child)
                mood.rating = 3
                try child.save()   // pushes into `main`, whose queue this thread holds
            }
            return main.insertedObjects.count
        }
        #expect(inserted == 1)
    }

    /// A main-queue context used outside `perform` ends its event at the next main-queue turn; a second change to an
    /// object that is already updated (unsaved) starts a new event and is reported again.
    @Test func everyChangeOutsidePerformIsReportedAtTheNextMainQueueTurn() async throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let (context, mood) = try await MainActor.run { () throws -> (LockedBox<NSManagedObjectContext>, LockedBox<Mood>) in
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let mood = Mood(context: context)
            mood.rating = 1
            try context.save()
            return (LockedBox(context), LockedBox(mood))
        }
        let reports = LockedBox<[Set<Int16>]>([])
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context.value, queue: nil) { note in
            let updated = (note.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>) ?? []
            reports.mutate { $0.append(Set(updated.compactMap { ($0 as? Mood)?.rating })) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        await MainActor.run { mood.value.rating = 2 }   // the object becomes updated
        await MainActor.run {}                            // the next main-queue turn ends the event
        await MainActor.run { mood.value.rating = 3 }   // already updated: still a change of a new event
        await MainActor.run {}
        #expect(reports.value == [[2], [3]])
    }
}
