@testable import OpenCoreData
import Foundation
import Testing

// The section cache: what it records, where, and when it is used, rewritten and refused.

private func cacheRequest() -> NSFetchRequest<NSManagedObject> {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
    request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "uid", ascending: true)]
    return request
}

private func populate(_ context: NSManagedObjectContext, _ count: Int) throws {
    try context.performAndWait {
        for uid in 1...count { FRCStack.item(Int64(uid), rank: uid, group: ["x", "y", "z"][uid % 3], in: context) }
        try context.save()
    }
}

@Suite("NSFetchedResultsController section cache")
struct FetchedResultsCacheTests {
    @Test func cachesOfFileStoresAreWrittenUnderTheXDGCacheDirectoryAndReused() throws {
        let stack = try FRCStack(sqlite: true)
        defer { stack.removeFiles() }
        let name = "frc-disk-\(UUID().uuidString)"
        defer { NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: name) }
        try populate(stack.context, 9)
        let file = FetchedResultsCache.fileURL(forName: name)
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache")
        #expect(file.path.hasPrefix(base + "/"))
        #expect(file.path.hasSuffix("/.CoreDataCaches/SectionInfoCaches/\(name)/sectionInfo"))

        let context = stack.newContext()
        let first = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: name)
        try context.performAndWait { try first.performFetch() }
        #expect(!first.engine.lastFetchUsedCache)
        #expect(FileManager.default.fileExists(atPath: file.path))

        let second = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try second.managedObjectContext.performAndWait {
            try second.performFetch()
            #expect(second.engine.lastFetchUsedCache)
            #expect(second.engine.fetchCount == 0, "the results came from the cache, without a fetch")
            #expect(second.sections?.map(\.name) == ["x", "y", "z"])
            #expect(second.sections?.map(\.numberOfObjects) == [3, 3, 3])
            #expect(second.fetchedObjects?.map(\.uid) == [3, 6, 9, 1, 4, 7, 2, 5, 8])
        }

        // Another context changes the store: the cache is older than the store and is recomputed.
        try stack.context.performAndWait {
            FRCStack.item(10, rank: 10, group: "x", in: stack.context)
            try stack.context.save()
        }
        let third = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try third.managedObjectContext.performAndWait {
            try third.performFetch()
            #expect(!third.engine.lastFetchUsedCache)
            #expect(third.sections?.first?.numberOfObjects == 4)
        }
        let fourth = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try fourth.managedObjectContext.performAndWait {
            try fourth.performFetch()
            #expect(fourth.engine.lastFetchUsedCache, "the recomputed cache was written again")
        }

        NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: name)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func aTrackingControllerKeepsItsCacheCurrent() throws {
        let stack = try FRCStack(sqlite: true)
        defer { stack.removeFiles() }
        let name = "frc-tracking-\(UUID().uuidString)"
        defer { NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: name) }
        try populate(stack.context, 6)
        let context = stack.context
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: name)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            FRCStack.item(7, rank: 7, group: "w", in: context)
        }
        context.performAndWait {}
        #expect(FetchedResultsCache.storedRecord(name: name)?.sections.count == 3, "unsaved results are not cached")
        try context.performAndWait { try context.save() }
        context.performAndWait {}
        let record = try #require(FetchedResultsCache.storedRecord(name: name))
        #expect(record.sections.map(\.name) == ["w", "x", "y", "z"])
        let other = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try other.managedObjectContext.performAndWait {
            try other.performFetch()
            #expect(other.engine.lastFetchUsedCache)
            #expect(other.fetchedObjects?.first?.uid == 7)
        }
    }

    @Test func aCacheOfAnotherConfigurationIsReplaced() throws {
        let stack = try FRCStack(sqlite: true)
        defer { stack.removeFiles() }
        let name = "frc-config-\(UUID().uuidString)"
        defer { NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: name) }
        try populate(stack.context, 6)
        let first = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try first.managedObjectContext.performAndWait { try first.performFetch() }
        let other = cacheRequest()
        other.predicate = NSPredicate(format: "rank > 2")
        let second = NSFetchedResultsController(fetchRequest: other, managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try second.managedObjectContext.performAndWait {
            try second.performFetch()
            #expect(!second.engine.lastFetchUsedCache)
            #expect(second.fetchedObjects?.count == 4)
        }
        #expect(FetchedResultsCache.storedRecord(name: name)?.configuration.predicateFormat == "rank > 2")
    }

    @Test func cachesOfInMemoryStoresStayInMemory() throws {
        let stack = try FRCStack()
        let name = "frc-memory-\(UUID().uuidString)"
        defer { NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: name) }
        try populate(stack.context, 6)
        let first = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try first.managedObjectContext.performAndWait { try first.performFetch() }
        #expect(!FileManager.default.fileExists(atPath: FetchedResultsCache.fileURL(forName: name).path))
        #expect(MemoryCaches.shared.record(named: name) != nil)
        let second = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try second.managedObjectContext.performAndWait {
            try second.performFetch()
            #expect(second.engine.lastFetchUsedCache)
        }
        // Any save to the store (here a deletion) makes the cache stale.
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "uid == 1")
            stack.context.delete(try stack.context.fetch(request)[0])
            try stack.context.save()
        }
        let third = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try third.managedObjectContext.performAndWait {
            try third.performFetch()
            #expect(!third.engine.lastFetchUsedCache)
            #expect(third.fetchedObjects?.count == 5)
        }
        NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: name)
        #expect(MemoryCaches.shared.record(named: name) == nil)
    }

    /// `deleteCache(withName: nil)` deletes every cache, in memory and on disk; shown on caches of the test's own
    /// (deleting the process's caches would delete those of the tests running beside it).
    @Test func deletingWithoutANameDeletesEveryCache() throws {
        let memory = MemoryCaches()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frc-caches-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = FetchedResultsCache.Configuration(entityName: "Item", entityVersionHash: Data(), predicateFormat: nil, sortDescriptors: [],
                                                              sectionNameKeyPath: nil, includesSubentities: true, includesPendingChanges: true,
                                                              fetchLimit: 0, fetchOffset: 0, storeIdentifiers: [])
        let record = FetchedResultsCache.Record(configuration: configuration, sections: [], objectURIs: [], storeToken: "t")
        memory.set(record, named: "first")
        memory.set(record, named: "second")
        for name in ["first", "second"] {
            let file = FetchedResultsCache.fileURL(forName: name, in: directory)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data([1]).write(to: file)
        }
        FetchedResultsCache.delete(name: "first", memory: memory, directory: directory)
        #expect(memory.record(named: "first") == nil && memory.record(named: "second") != nil)
        #expect(!FileManager.default.fileExists(atPath: FetchedResultsCache.fileURL(forName: "first", in: directory).path))
        #expect(FileManager.default.fileExists(atPath: FetchedResultsCache.fileURL(forName: "second", in: directory).path))
        FetchedResultsCache.delete(name: nil, memory: memory, directory: directory)
        #expect(memory.record(named: "second") == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func batchUpdatesOfInMemoryStoresInvalidateTheirCaches() throws {
        let stack = try FRCStack()
        let name = "frc-batch-\(UUID().uuidString)"
        defer { NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: name) }
        try populate(stack.context, 3)
        let first = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try first.managedObjectContext.performAndWait { try first.performFetch() }
        try stack.context.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Item")
            update.propertiesToUpdate = ["group": "w"]
            _ = try stack.context.execute(update)
        }
        let second = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: stack.newContext(), sectionNameKeyPath: "group", cacheName: name)
        try second.managedObjectContext.performAndWait {
            try second.performFetch()
            #expect(!second.engine.lastFetchUsedCache)
            #expect(second.sections?.map(\.name) == ["w"])
        }
    }

    @Test func contextsWithUnsavedChangesDoNotUseCaches() throws {
        let stack = try FRCStack()
        let name = "frc-dirty-\(UUID().uuidString)"
        defer { NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: name) }
        try populate(stack.context, 3)
        let context = stack.newContext()
        let first = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: name)
        try context.performAndWait { try first.performFetch() }
        let second = NSFetchedResultsController(fetchRequest: cacheRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: name)
        try context.performAndWait {
            FRCStack.item(4, rank: 4, group: "a", in: context)
            try second.performFetch()
            #expect(!second.engine.lastFetchUsedCache)
            #expect(second.sections?.first?.name == "a")
        }
    }

    @Test func mutatingTheRequestWithoutDeletingTheCacheStops() async throws {
        await #expect(processExitsWith: .failure) {
            let stack = try FRCStack()
            let name = "frc-mutated-\(UUID().uuidString)"
            try populate(stack.context, 3)
            let request = cacheRequest()
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "group", cacheName: name)
            try stack.context.performAndWait {
                try controller.performFetch()
                request.predicate = NSPredicate(format: "rank > 1")
                try controller.performFetch()   // Apple raises: "You have illegally mutated the NSFetchedResultsController's fetch request …"
            }
        }
    }

    @Test func mutatingTheRequestAfterDeletingTheCacheWorks() throws {
        let stack = try FRCStack()
        let name = "frc-remutated-\(UUID().uuidString)"
        defer { NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: name) }
        try populate(stack.context, 3)
        let request = cacheRequest()
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "group", cacheName: name)
        try stack.context.performAndWait {
            try controller.performFetch()
            NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name)
            request.predicate = NSPredicate(format: "rank > 1")
            try controller.performFetch()
            #expect(controller.fetchedObjects?.count == 2)
        }
    }

    @Test func aRequestWithoutSortDescriptorsStops() async {
        await #expect(processExitsWith: .failure) {
            let stack = try FRCStack()
            let controller = NSFetchedResultsController(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Item"),
                                                        managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: nil)
            try stack.context.performAndWait { try controller.performFetch() }
        }
    }

    @Test func cacheNamesAreEscapedIntoOneFolder() {
        #expect(FetchedResultsCache.fileURL(forName: "a/b").deletingLastPathComponent().lastPathComponent == "a%2Fb")
        #expect(FetchedResultsCache.fileURL(forName: "..").deletingLastPathComponent().lastPathComponent == "%..")
    }
}
