import OpenCoreData
import Testing

// The concurrency debug mode (`-com.apple.CoreData.ConcurrencyDebug 1`, here also
// OPENCOREDATA_CONCURRENCY_DEBUG=1): using a queue-confined context, or one of its objects, off its queue stops
// the program. `ConcurrencyDebug.isEnabled` is read once, so each exit test sets the variable first thing in
// its own process, before anything touches the library.

/// The program stopped with the mode's message (not, say, a crash of another kind before it could say anything).
private func expectViolationMessage(_ result: ExitTest.Result?, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let result else { return }
    let standardError = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(standardError.contains("concurrency violation"), "stderr: \(standardError.suffix(600))", sourceLocation: sourceLocation)
}

@Suite("Concurrency debug mode")
struct ConcurrencyDebugTests {
    @Test func aPrivateQueueContextUsedOffItsQueueStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OPENCOREDATA_CONCURRENCY_DEBUG", "1", 1)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            _ = context.hasChanges
        }
        expectViolationMessage(result)
    }

    @Test func anObjectUsedOffItsContextsQueueStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OPENCOREDATA_CONCURRENCY_DEBUG", "1", 1)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
            try! coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            let mood = context.performAndWait {
                context.persistentStoreCoordinator = coordinator
                return Mood(context: context)
            }
            mood.rating = 2
        }
        expectViolationMessage(result)
    }

    @Test func anObjectUsedInsideAnotherContextsBlockStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OPENCOREDATA_CONCURRENCY_DEBUG", "1", 1)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
            try! coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            let mood = context.performAndWait {
                context.persistentStoreCoordinator = coordinator
                return Mood(context: context)
            }
            other.performAndWait { _ = mood.rating }
        }
        expectViolationMessage(result)
    }

    @Test func theSameWorkInsidePerformAndWaitSucceeds() async {
        await #expect(processExitsWith: .success) {
            setenv("OPENCOREDATA_CONCURRENCY_DEBUG", "1", 1)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
            try! coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.performAndWait {
                context.persistentStoreCoordinator = coordinator
                let mood = Mood(context: context)
                mood.rating = 2
                _ = context.hasChanges
                try! context.save()
            }
        }
    }

    /// "Setter methods on queue-based managed object contexts are thread-safe. You can invoke these methods
    /// directly on any thread." (NSManagedObjectContext, Concurrency.) Every Apple sample sets the coordinator right
    /// after creating a private-queue context, outside `perform`.
    @Test func settingUpAContextOffItsQueueIsAllowed() async {
        await #expect(processExitsWith: .success) {
            setenv("OPENCOREDATA_CONCURRENCY_DEBUG", "1", 1)
            let stack = try! MoodyStack()  // sets persistentStoreCoordinator outside perform
            let context = stack.context
            context.name = "background"
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            context.performAndWait {
                _ = Mood(context: context)
                try! context.save()
            }
        }
    }
}
