import OpenCoreData
import Synchronization
import Testing

// NSPersistentContainer: creating the stack, the default store location, loading stores and the errors loading
// reports, background contexts. Apple documents that the name names the model and the store, that the completion
// handler is called once per store description, that stores are added on the calling thread unless
// shouldAddStoreAsynchronously is set, and that performBackgroundTask makes a new private-queue context each time.

/// A container subclass that moves its default stores, as Apple documents for `defaultDirectoryURL()`.
final class RelocatedContainer: NSPersistentContainer, @unchecked Sendable {
    static let directory = URL(fileURLWithPath: "/tmp/ocd-relocated-container", isDirectory: true)
    override class func defaultDirectoryURL() -> URL { directory }
}

struct ContainerTestError: Error, Equatable {}

@Suite("NSPersistentContainer", .timeLimit(.minutes(1)))
struct ContainerTests {
    // MARK: Creating a container

    @Test func containerWithAModelBuildsTheStack() throws {
        let model = try ContainerTestSupport.libraryV1()
        let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
        #expect(container.name == "Library")
        #expect(container.managedObjectModel === model)
        #expect(container.persistentStoreCoordinator.managedObjectModel === model)
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)

        // The default: one SQLite store named after the container in the default directory.
        let descriptions = container.persistentStoreDescriptions
        #expect(descriptions.count == 1)
        #expect(descriptions.first?.type == NSSQLiteStoreType)
        #expect(descriptions.first?.url == NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("Library.sqlite"))
        #expect(container.persistentStoreDescriptions.first === descriptions.first, "the default is made once")

        let viewContext = container.viewContext
        #expect(viewContext === container.viewContext)
        #expect(viewContext.concurrencyType == .mainQueueConcurrencyType)
        #expect(viewContext.persistentStoreCoordinator === container.persistentStoreCoordinator)
        #expect(viewContext.automaticallyMergesChangesFromParent == false)
    }

    @Test func defaultDirectoryIsThePerApplicationDataDirectory() {
        // Read only: nothing is created until a store is added (the child-process test below adds one).
        let url = NSPersistentContainer.defaultDirectoryURL()
        let environment = ProcessInfo.processInfo.environment
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/share").path
        #expect(url.deletingLastPathComponent().standardizedFileURL.path == URL(fileURLWithPath: dataHome).standardizedFileURL.path)
        #expect(url.lastPathComponent == (Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName))
    }

    @Test func subclassesMoveTheDefaultStoreAndInheritInitName() throws {
        let container = RelocatedContainer(name: "Library")
        #expect(container.persistentStoreDescriptions.first?.url == RelocatedContainer.directory.appendingPathComponent("Library.sqlite"))
        #expect(container.managedObjectModel.entitiesByName["Ebook"] != nil, "init(name:) is inherited and finds the model")
    }

    @Test func initNameFindsTheModelInTheTestBundlesResources() throws {
        // SwiftPM copies the test target's resources to OpenCoreData_OpenCoreDataTests.resources beside the test
        // executable; init(name:) finds Library.xcdatamodeld there and loads its current version.
        let container = NSPersistentContainer(name: "Library")
        #expect(Set(container.managedObjectModel.entitiesByName.keys) == ["Author", "Book", "Ebook"])
        #expect(container.managedObjectModel.versionIdentifiers == ["2"])

        let directory = try ContainerTestSupport.scratchDirectory()
        defer { ContainerTestSupport.remove(directory) }
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.appendingPathComponent("Library.sqlite"))]
        let results = LoadResults()
        container.loadPersistentStores(completionHandler: results.record)
        #expect(results.all.count == 1)
        #expect(results.all.first?.error == nil)
    }

    @Test func aMissingModelIsReportedByEveryLoad() throws {
        let name = "NoSuchModel-\(UUID().uuidString)"
        let container = NSPersistentContainer(name: name)
        #expect(container.managedObjectModel.entities.isEmpty)
        let memory = NSPersistentStoreDescription()
        memory.type = NSInMemoryStoreType
        let other = NSPersistentStoreDescription()
        other.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [memory, other]
        let results = LoadResults()
        container.loadPersistentStores(completionHandler: results.record)
        #expect(results.all.count == 2)
        for load in results.all {
            let error = try #require(load.error)
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSCoreDataError)
            #expect(error.localizedDescription.contains("Failed to load model named \(name)"))
            #expect(error.localizedDescription.contains("NSPersistentContainer(name:managedObjectModel:)"))
        }
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
    }

    // MARK: Loading stores

    @Test func inMemoryStore() throws {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: try ContainerTestSupport.libraryV1())
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        let results = LoadResults()
        container.loadPersistentStores(completionHandler: results.record)

        // Called once, before loadPersistentStores returned, with a copy of the description and no error.
        let load = try #require(results.all.first)
        #expect(results.all.count == 1)
        #expect(load.error == nil)
        #expect(load.description == description)
        #expect(load.description !== description)
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
        #expect(store.type == NSInMemoryStoreType)

        try ContainerTestSupport.insertBooks(["Dune", "Emma"], into: container.viewContext)
        #expect(try ContainerTestSupport.bookTitles(in: container.newBackgroundContext()) == ["Dune", "Emma"])
    }

    @Test func sqliteStoreInADirectoryOfOurOwn() throws {
        let directory = try ContainerTestSupport.scratchDirectory()
        defer { ContainerTestSupport.remove(directory) }
        // A directory that does not exist yet is created when the store is added.
        let url = directory.appendingPathComponent("nested/Library.sqlite")
        let (container, loads) = ContainerTestSupport.sqliteContainer(try ContainerTestSupport.libraryV1(), at: url)
        #expect(loads.count == 1 && loads.first?.error == nil)
        #expect(loads.first?.description.url == url)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(container.persistentStoreCoordinator.persistentStores.first?.url?.standardizedFileURL == url.standardizedFileURL)
        try ContainerTestSupport.insertBooks(["Persuasion"], into: container.viewContext)

        // A second container on the same file sees the saved book.
        let (reopened, reloads) = ContainerTestSupport.sqliteContainer(try ContainerTestSupport.libraryV1(), at: url)
        #expect(reloads.first?.error == nil)
        #expect(try ContainerTestSupport.bookTitles(in: reopened.viewContext) == ["Persuasion"])
    }

    @Test func optionsReachTheStore() throws {
        let directory = try ContainerTestSupport.scratchDirectory()
        defer { ContainerTestSupport.remove(directory) }
        let url = directory.appendingPathComponent("Library.sqlite")
        _ = ContainerTestSupport.sqliteContainer(try ContainerTestSupport.libraryV1(), at: url)

        let container = NSPersistentContainer(name: "Library", managedObjectModel: try ContainerTestSupport.libraryV1())
        let description = NSPersistentStoreDescription(url: url)
        description.isReadOnly = true
        description.timeout = 3
        description.setValue("FULL" as NSString, forPragmaNamed: "synchronous")
        container.persistentStoreDescriptions = [description]
        let results = LoadResults()
        container.loadPersistentStores(completionHandler: results.record)
        #expect(results.all.first?.error == nil)
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
        #expect(store.isReadOnly)
        #expect((store.options?[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue == 3)
        #expect((store.options?[NSSQLitePragmasOption] as? NSDictionary)?["synchronous"] as? NSString == "FULL")
        #expect((store.options?[NSMigratePersistentStoresAutomaticallyOption] as? NSNumber)?.boolValue == true)
    }

    @Test func theHandlerIsCalledOncePerDescriptionInOrder() throws {
        let directory = try ContainerTestSupport.scratchDirectory()
        defer { ContainerTestSupport.remove(directory) }
        let container = NSPersistentContainer(name: "Library", managedObjectModel: try ContainerTestSupport.libraryV1())
        let urls = ["One.sqlite", "Two.sqlite"].map { directory.appendingPathComponent($0) }
        let memory = NSPersistentStoreDescription()
        memory.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = urls.map { NSPersistentStoreDescription(url: $0) } + [memory]
        let results = LoadResults()
        container.loadPersistentStores(completionHandler: results.record)
        #expect(results.all.map(\.description.url) == urls + [memory.url])
        #expect(results.all.allSatisfy { $0.error == nil })
        #expect(container.persistentStoreCoordinator.persistentStores.count == 3)
    }

    @Test func loadingTwiceReportsTheStoreThatIsAlreadyAdded() throws {
        let directory = try ContainerTestSupport.scratchDirectory()
        defer { ContainerTestSupport.remove(directory) }
        let (container, loads) = ContainerTestSupport.sqliteContainer(try ContainerTestSupport.libraryV1(), at: directory.appendingPathComponent("Library.sqlite"))
        #expect(loads.first?.error == nil)
        let again = LoadResults()
        container.loadPersistentStores(completionHandler: again.record)
        #expect(again.all.count == 1)
        let error = try #require(again.all.first?.error)
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1, "the first store stays")
        try ContainerTestSupport.insertBooks(["Still works"], into: container.viewContext)
    }

    @Test func aStoreOfAnotherModelVersionReports134100WithoutMigration() throws {
        let directory = try ContainerTestSupport.scratchDirectory()
        defer { ContainerTestSupport.remove(directory) }
        let url = directory.appendingPathComponent("Library.sqlite")
        let (first, loads) = ContainerTestSupport.sqliteContainer(try ContainerTestSupport.libraryV1(), at: url)
        #expect(loads.first?.error == nil)
        try ContainerTestSupport.insertBooks(["Kept"], into: first.viewContext)

        let container = NSPersistentContainer(name: "Library", managedObjectModel: try ContainerTestSupport.libraryV2())
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = false
        container.persistentStoreDescriptions = [description]
        let results = LoadResults()
        container.loadPersistentStores(completionHandler: results.record)
        let error = try #require(results.all.first?.error)
        #expect(results.all.count == 1)
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
        // The store is untouched.
        let (reopened, _) = ContainerTestSupport.sqliteContainer(try ContainerTestSupport.libraryV1(), at: url)
        #expect(try ContainerTestSupport.bookTitles(in: reopened.viewContext) == ["Kept"])
    }

    @Test func aStoreOfAnotherModelVersionMigratesByDefault() throws {
        let directory = try ContainerTestSupport.scratchDirectory()
        defer { ContainerTestSupport.remove(directory) }
        let url = directory.appendingPathComponent("Library.sqlite")
        let (first, _) = ContainerTestSupport.sqliteContainer(try ContainerTestSupport.libraryV1(), at: url)
        try ContainerTestSupport.insertBooks(["Kept"], into: first.viewContext)
        for store in first.persistentStoreCoordinator.persistentStores { try first.persistentStoreCoordinator.remove(store) }

        // The description's defaults migrate automatically with an inferred mapping (the source version is found
        // in the model's own package).
        let (container, results) = ContainerTestSupport.sqliteContainer(try ContainerTestSupport.libraryV2(), at: url)
        #expect(results.first?.error == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
        #expect(try ContainerTestSupport.bookTitles(in: container.viewContext) == ["Kept"])
    }

    @Test func aReadOnlyStoreThatDoesNotExistIsAnError() throws {
        let directory = try ContainerTestSupport.scratchDirectory()
        defer { ContainerTestSupport.remove(directory) }
        let url = directory.appendingPathComponent("Missing.sqlite")
        let container = NSPersistentContainer(name: "Library", managedObjectModel: try ContainerTestSupport.libraryV1())
        let description = NSPersistentStoreDescription(url: url)
        description.isReadOnly = true
        container.persistentStoreDescriptions = [description]
        let results = LoadResults()
        container.loadPersistentStores(completionHandler: results.record)
        #expect(results.all.count == 1)
        let error = try #require(results.all.first?.error)
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(!FileManager.default.fileExists(atPath: url.path), "nothing is created")
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
    }

    @Test func asynchronousDescriptionsAreAddedAfterLoadReturns() async throws {
        let directory = try ContainerTestSupport.scratchDirectory()
        defer { ContainerTestSupport.remove(directory) }
        let container = NSPersistentContainer(name: "Library", managedObjectModel: try ContainerTestSupport.libraryV1())
        let asynchronous = NSPersistentStoreDescription(url: directory.appendingPathComponent("Async.sqlite"))
        asynchronous.shouldAddStoreAsynchronously = true
        let synchronous = NSPersistentStoreDescription(url: directory.appendingPathComponent("Sync.sqlite"))
        container.persistentStoreDescriptions = [asynchronous, synchronous]

        let returned = DispatchSemaphore(value: 0)
        let order = LockedValue<[String]>([])
        let asyncSawReturn = LockedValue<Bool?>(nil)
        let loads = LoadResults()
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            container.loadPersistentStores { description, error in
                loads.record(description, error)
                let name = description.url?.lastPathComponent ?? "?"
                order.update { $0.append(name) }
                if description.shouldAddStoreAsynchronously {
                    // Waits for loadPersistentStores to return: it would time out if this ran inside the call.
                    let sawReturn = returned.wait(timeout: .now() + 10) == .success
                    asyncSawReturn.update { $0 = sawReturn }
                    finished.resume()
                }
            }
            #expect(order.value == ["Sync.sqlite"], "the synchronous store is added before the call returns")
            returned.signal()
        }
        #expect(asyncSawReturn.value == true)
        #expect(order.value == ["Sync.sqlite", "Async.sqlite"])
        #expect(loads.all.allSatisfy { $0.error == nil })
        #expect(container.persistentStoreCoordinator.persistentStores.count == 2)
    }

    // MARK: Background contexts

    @Test func backgroundContextsArePrivateAndNewEachTime() throws {
        let container = try ContainerTestSupport.inMemoryContainer(try ContainerTestSupport.libraryV1())
        let first = container.newBackgroundContext()
        let second = container.newBackgroundContext()
        #expect(first !== second)
        #expect(first.concurrencyType == .privateQueueConcurrencyType)
        #expect(first.persistentStoreCoordinator === container.persistentStoreCoordinator)
        #expect(first.parent == nil)
        try ContainerTestSupport.insertBooks(["Middlemarch"], into: first)
        #expect(try ContainerTestSupport.bookTitles(in: second) == ["Middlemarch"])
        #expect(try ContainerTestSupport.bookTitles(in: container.viewContext) == ["Middlemarch"])
    }

    @Test func performBackgroundTaskWithACompletionBlock() async throws {
        let container = try ContainerTestSupport.inMemoryContainer(try ContainerTestSupport.libraryV1())
        let contexts = LockedValue<[NSManagedObjectContext]>([])
        for title in ["Beloved", "Ulysses"] {
            let saved: Bool = await withCheckedContinuation { continuation in
                container.performBackgroundTask { context in
                    contexts.update { $0.append(context) }
                    #expect(context.concurrencyType == .privateQueueConcurrencyType)
                    #expect(!Thread.isMainThread)
                    NSEntityDescription.insertNewObject(forEntityName: "Book", into: context).setValue(title, forKey: "title")
                    continuation.resume(returning: (try? context.save()) != nil)
                }
            }
            #expect(saved)
        }
        let used = contexts.value
        #expect(used.count == 2 && used[0] !== used[1], "a new context for every task")
        #expect(try ContainerTestSupport.bookTitles(in: container.viewContext) == ["Beloved", "Ulysses"])
    }

    @Test func performBackgroundTaskAsync() async throws {
        let container = try ContainerTestSupport.inMemoryContainer(try ContainerTestSupport.libraryV1())
        // A closure that does not throw needs no `try`.
        let inserted = await container.performBackgroundTask { context -> Int in
            for title in ["Walden", "Candide", "Ivanhoe"] {
                NSEntityDescription.insertNewObject(forEntityName: "Book", into: context).setValue(title, forKey: "title")
            }
            return context.insertedObjects.count
        }
        #expect(inserted == 3)
        // Changes made in that task's context were not saved: its context is gone.
        let count = try await container.performBackgroundTask { context in
            try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book"))
        }
        #expect(count == 0)
        let saved = try await container.performBackgroundTask { context -> [String] in
            NSEntityDescription.insertNewObject(forEntityName: "Book", into: context).setValue("Walden", forKey: "title")
            try context.save()
            return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).compactMap { $0.value(forKey: "title") as? String }
        }
        #expect(saved == ["Walden"])
        await #expect(throws: ContainerTestError()) {
            try await container.performBackgroundTask { _ in throw ContainerTestError() }
        }
    }
}
