import OpenCoreData
import Testing

// The view context is a main-queue context. These tests use it the ways a Linux program does: from a background
// task through perform and performAndWait (which run on the main queue, serviced here by the test runner's async
// main — after dispatchMain(), Linux's libdispatch drains the main queue on a worker thread, so "on the main queue"
// is checked with a queue-specific marker, not Thread.isMainThread), from main-actor code directly, and with
// automatic merging of background saves.

/// Tells whether the current code runs on the main dispatch queue (whichever thread drains it).
enum MainQueueMarker {
    static let key = DispatchSpecificKey<Bool>()
    private static let installed: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    static var isOnMainQueue: Bool {
        _ = installed
        return DispatchQueue.getSpecific(key: key) == true
    }
}

@Suite("NSPersistentContainer.viewContext", .timeLimit(.minutes(1)))
struct ContainerViewContextTests {
    @Test func performAndWaitFromABackgroundTaskRunsOnTheMainQueue() throws {
        let container = try ContainerTestSupport.inMemoryContainer(try ContainerTestSupport.libraryV1())
        let viewContext = container.viewContext
        #expect(!MainQueueMarker.isOnMainQueue, "this test runs off the main queue")
        let onMainQueue = viewContext.performAndWait { MainQueueMarker.isOnMainQueue }
        #expect(onMainQueue)
        try ContainerTestSupport.insertBooks(["Kim"], into: viewContext)
        #expect(try ContainerTestSupport.bookTitles(in: viewContext) == ["Kim"])
    }

    @Test func performFromABackgroundTaskRunsOnTheMainQueue() async throws {
        let container = try ContainerTestSupport.inMemoryContainer(try ContainerTestSupport.libraryV1())
        let viewContext = container.viewContext
        let savedOnMainQueue: Bool = await withCheckedContinuation { continuation in
            viewContext.perform {
                NSEntityDescription.insertNewObject(forEntityName: "Book", into: viewContext).setValue("Nostromo", forKey: "title")
                continuation.resume(returning: MainQueueMarker.isOnMainQueue && (try? viewContext.save()) != nil)
            }
        }
        #expect(savedOnMainQueue)
        let titles = try await viewContext.perform {
            try viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).compactMap { $0.value(forKey: "title") as? String }
        }
        #expect(titles == ["Nostromo"])
    }

    @Test func mainActorCodeUsesItDirectlyAndTheEventEndsAtTheNextMainQueueTurn() async throws {
        let container = try ContainerTestSupport.inMemoryContainer(try ContainerTestSupport.libraryV1())
        let viewContext = container.viewContext
        let changes = LockedValue(0)
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: viewContext, queue: nil) { _ in
            changes.update { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        // Main-actor code (a command-line program's async main) uses the context outside perform.
        let before = await MainActor.run {
            NSEntityDescription.insertNewObject(forEntityName: "Book", into: viewContext).setValue("Pnin", forKey: "title")
            return changes.value
        }
        await viewContext.perform(schedule: .enqueued) {}
        #expect(changes.value == before + 1, "ObjectsDidChange was posted at the end of the main-queue turn")
        let count = try await viewContext.perform {
            try viewContext.save()
            return try viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book"))
        }
        #expect(count == 1)
    }

    @Test func performAndWaitFromMainQueueCodeRunsAtOnce() async {
        // An async main (or a program that called dispatchMain()) runs main-actor code and main-queue blocks on a
        // worker thread; performAndWait there must run the block at once (the context recognises the main queue by
        // a queue mark, not by Thread.isMainThread). Checked in a child process: a deadlock would stop it.
        await #expect(processExitsWith: .success) {
            let container = NSPersistentContainer(name: "Library", managedObjectModel: NSManagedObjectModel())
            let description = NSPersistentStoreDescription()
            description.type = NSInMemoryStoreType
            container.persistentStoreDescriptions = [description]
            container.loadPersistentStores { _, error in precondition(error == nil) }
            let viewContext = container.viewContext
            let value = await MainActor.run { viewContext.performAndWait { 42 } }
            precondition(value == 42)
        }
    }

    @Test func mergesBackgroundSavesWhenAutomaticallyMergesChangesFromParentIsSet() async throws {
        let container = try ContainerTestSupport.inMemoryContainer(try ContainerTestSupport.libraryV1())
        let viewContext = container.viewContext
        #expect(viewContext.automaticallyMergesChangesFromParent == false)
        viewContext.automaticallyMergesChangesFromParent = true
        viewContext.performAndWait { viewContext.retainsRegisteredObjects = true }
        try ContainerTestSupport.insertBooks(["Draft"], into: viewContext)
        let bookID = try await viewContext.perform {
            try #require(try viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).first).objectID
        }

        try await container.performBackgroundTask { context in
            try context.existingObject(with: bookID).setValue("Final", forKey: "title")
            NSEntityDescription.insertNewObject(forEntityName: "Book", into: context).setValue("Sequel", forKey: "title")
            try context.save()
        }
        // The merge was queued on the main queue during the save; this block runs after it.
        let (title, registered) = await viewContext.perform(schedule: .enqueued) {
            (viewContext.registeredObject(for: bookID)?.value(forKey: "title") as? String,
             viewContext.registeredObjects.count)
        }
        #expect(title == "Final")
        #expect(registered == 2, "the inserted book became known to the view context")
    }

    @Test func doesNotMergeByDefault() async throws {
        let container = try ContainerTestSupport.inMemoryContainer(try ContainerTestSupport.libraryV1())
        let viewContext = container.viewContext
        viewContext.performAndWait { viewContext.retainsRegisteredObjects = true }
        try ContainerTestSupport.insertBooks(["Draft"], into: viewContext)
        let bookID = try await viewContext.perform {
            try #require(try viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).first).objectID
        }
        try await container.performBackgroundTask { context in
            try context.existingObject(with: bookID).setValue("Final", forKey: "title")
            try context.save()
        }
        let title = await viewContext.perform(schedule: .enqueued) {
            viewContext.registeredObject(for: bookID)?.value(forKey: "title") as? String
        }
        #expect(title == "Draft", "the view context keeps its own snapshot until it refreshes")
    }
}
