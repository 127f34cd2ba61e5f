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
}
