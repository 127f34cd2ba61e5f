import Foundation
import Testing

@_spi(OpenSwiftData) @testable import OpenCoreData

/// `NSPersistentStoreConnectionPoolMaxSizeKey`: with 2 or more connections, fetches from other contexts run on pooled
/// read-only connections while a save holds the write transaction (and the coordinator's lock), and see the committed
/// state; with 1, reads and writes take turns on one connection.
@Suite("NSPersistentStoreConnectionPoolMaxSizeKey")
struct ConnectionPoolTests {
    static func open(poolSize: Int?, url: URL? = nil) throws -> (NSPersistentStoreCoordinator, SQLiteStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: StressModel.shared)
        let url = try url ?? TemporaryDirectory.make().appendingPathComponent("Pool.sqlite")
        let options: [AnyHashable: Any]? = poolSize.map { [NSPersistentStoreConnectionPoolMaxSizeKey: NSNumber(value: $0)] }
        let store = try #require(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options) as? SQLiteStore)
        return (coordinator, store)
    }

    static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Saves `count` items titled `prefix-<n>`, returns their titles.
    @discardableResult
    static func insertItems(_ coordinator: NSPersistentStoreCoordinator, prefix: String, count: Int) throws -> Set<String> {
        let context = context(coordinator)
        return try context.performAndWait {
            var titles = Set<String>()
            for index in 0..<count {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue("\(prefix)-\(index)", forKey: "title")
                item.setValue(Int64(index), forKey: "stamp")
                titles.insert("\(prefix)-\(index)")
            }
            try context.save()
            return titles
        }
    }

    /// What fetches from two other contexts saw while a save of `saved` new items held the write transaction: for each
    /// context the titles it fetched and its count, or nil when it had not finished within `wait` seconds.
    final class DuringSave: @unchecked Sendable {
        // @unchecked Sendable: fields are guarded by `lock`.
        let lock = NSLock()
        var titles: [Set<String>?] = [nil, nil]
        var counts: [Int?] = [nil, nil]
        var finishedInTime = false
        var ran = false
    }

    static func fetchDuringSave(_ coordinator: NSPersistentStoreCoordinator, _ store: SQLiteStore, wait: TimeInterval, saving saved: Int,
                                deleting: NSManagedObjectID? = nil, readyInsideSave: (@Sendable () -> Bool)? = nil,
                                afterSave: () -> Void = {}) throws -> DuringSave {
        let readers = [context(coordinator), context(coordinator)]
        let during = DuringSave()
        let group = DispatchGroup()
        store.testHookInsideWriteTransaction = {
            store.testHookInsideWriteTransaction = nil
            for (index, reader) in readers.enumerated() {
                DispatchQueue.global().async(group: group) {
                    let (titles, count) = reader.performAndWait { () -> (Set<String>?, Int?) in
                        let items = try? reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                        let count = try? reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))
                        return (items.map { Set($0.compactMap { $0.value(forKey: "title") as? String }) }, count)
                    }
                    during.lock.withLock {
                        during.titles[index] = titles
                        during.counts[index] = count
                    }
                }
            }
            let finished: Bool
            if let readyInsideSave {
                // The save commits once `readyInsideSave` says so (or `wait` seconds have passed).
                let deadline = Date(timeIntervalSinceNow: wait)
                while !readyInsideSave() && Date() < deadline { usleep(1_000) }
                finished = readyInsideSave()
            } else {
                finished = group.wait(timeout: .now() + wait) == .success
            }
            during.lock.withLock {
                during.finishedInTime = finished
                during.ran = true
            }
        }
        let writer = context(coordinator)
        try writer.performAndWait {
            for index in 0..<saved {
                NSEntityDescription.insertNewObject(forEntityName: "Item", into: writer).setValue("new-\(index)", forKey: "title")
            }
            if let deleting { writer.delete(try writer.existingObject(with: deleting)) }
            try writer.save()
        }
        afterSave()
        group.wait()
        return during
    }

    @Test func fetchesFromTwoContextsRunOnTwoReadersWhileASaveWrites() throws {
        let (coordinator, store) = try Self.open(poolSize: 3)
        let committed = try Self.insertItems(coordinator, prefix: "committed", count: 50)
        let pool = try #require(store.readerPool)
        pool.waitForOverlap(of: 2)   // each pooled read waits (at most 5 s) until the other one reads too
        let during = try Self.fetchDuringSave(coordinator, store, wait: 10, saving: 2_000)
        #expect(during.ran)
        #expect(during.finishedInTime, "both fetches completed while the save held its write transaction")
        // The committed state: the 50 saved items, none of the save's 2,000 (uncommitted while they read).
        #expect(during.titles == [committed, committed])
        #expect(during.counts == [50, 50])
        #expect(pool.statistics.mostConcurrentReads == 2, "two statements read at once, on two connections")
        #expect(pool.statistics.openConnections == 2)
        pool.waitForOverlap(of: 0)
        let after = Self.context(coordinator)
        #expect(try after.performAndWait { try after.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) } == 2_050)
    }

    @Test func aRowReadBeforeASaveDeletedItDoesNotComeBackIntoTheRowCache() throws {
        let (coordinator, store) = try Self.open(poolSize: 3)
        try Self.insertItems(coordinator, prefix: "committed", count: 10)
        let setup = Self.context(coordinator)
        let victim = try setup.performAndWait {
            try #require(try setup.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first { $0.value(forKey: "title") as? String == "committed-3" }).objectID
        }
        coordinator.rowCache.removeAll()
        // The pooled fetches read during the save, and get to the row cache only once the save has committed and
        // recorded its own changes (its deletion) there, with the coordinator's lock free.
        let saveDone = Locked(false), readsDone = Locked(0)
        let pool = try #require(store.readerPool)
        pool.testHookAfterRead = {
            readsDone.withLock { $0 += 1 }
            let deadline = Date(timeIntervalSinceNow: 10)
            while !saveDone.withLock({ $0 }) && Date() < deadline { usleep(1_000) }
        }
        let during = try Self.fetchDuringSave(coordinator, store, wait: 10, saving: 1, deleting: victim, readyInsideSave: { readsDone.withLock { $0 } >= 2 }) {
            saveDone.withLock { $0 = true }
        }
        pool.testHookAfterRead = nil
        #expect(during.finishedInTime, "both fetches read while the save held its write transaction")
        #expect(during.titles.allSatisfy { $0?.contains("committed-3") == true }, "read before the delete committed: \(during.titles)")
        // After the save, the deleted row is gone for everyone: no cached copy answers for it.
        let later = Self.context(coordinator)
        let found = later.performAndWait { try? later.existingObject(with: victim) }
        #expect(found == nil)
    }

    @Test func oneConnectionMakesReadsWaitForTheSave() throws {
        for poolSize in [nil, 1] as [Int?] {
            let (coordinator, store) = try Self.open(poolSize: poolSize)
            let committed = try Self.insertItems(coordinator, prefix: "committed", count: 5)
            #expect(store.readerPool == nil)
            let during = try Self.fetchDuringSave(coordinator, store, wait: 0.5, saving: 10)
            #expect(during.ran)
            #expect(!during.finishedInTime, "the fetches waited for the save's lock")
            // They ran after the save: they see its rows.
            #expect(during.counts == [15, 15])
            #expect(during.titles[0]?.isSuperset(of: committed) == true)
        }
    }

    @Test func inMemoryAndReadOnlyStoresKeepOneConnection() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: StressModel.shared)
        let memory = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: "/dev/null"),
                                                        options: [NSPersistentStoreConnectionPoolMaxSizeKey: 4]) as? SQLiteStore
        #expect(memory?.readerPool == nil)
        let url = try TemporaryDirectory.make().appendingPathComponent("ReadOnly.sqlite")
        _ = try Self.open(poolSize: nil, url: url)
        let readOnly = try NSPersistentStoreCoordinator(managedObjectModel: StressModel.shared)
            .addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                options: [NSPersistentStoreConnectionPoolMaxSizeKey: 4, NSReadOnlyPersistentStoreOption: true]) as? SQLiteStore
        #expect(readOnly?.readerPool == nil)
        #expect(NSPersistentStoreConnectionPoolMaxSizeKey == "NSPersistentStoreConnectionPoolMaxSize")
    }
}
