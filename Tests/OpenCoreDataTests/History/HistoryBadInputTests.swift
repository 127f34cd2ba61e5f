import Foundation
import Testing

@_spi(OpenSwiftData) @testable import OpenCoreData

// History requests that cannot be answered end in Core Data errors (NSCocoaErrorDomain), never a crash.

@Suite("Persistent history: bad input", .timeLimit(.minutes(1)))
struct HistoryBadInputTests {
    @Test("a history request against stores without history tracking throws NSPersistentStoreUnsupportedRequestTypeError")
    func noHistory() throws {
        for stack in [try HistoryStack(options: nil), try HistoryStack(options: nil, type: NSInMemoryStoreType)] {
            let context = stack.context()
            for request in [NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?),
                            .fetchHistory(after: Date.distantPast), .deleteHistory(before: Date())] {
                let error = context.performAndWait { thrownError { _ = try context.execute(request) } }
                #expect(error?.domain == NSCocoaErrorDomain)
                #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
            }
            #expect(stack.coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
        }
    }

    @Test("tokens of another store neither select nor delete anything there; a garbage archive is no token")
    func foreignTokens() throws {
        let first = try HistoryStack(), second = try HistoryStack()
        for stack in [first, second] {
            let context = stack.context()
            try context.performAndWait {
                context.insertNote("n")
                try context.save()
            }
        }
        let foreign = try #require(second.coordinator.currentPersistentHistoryToken(fromStores: nil))
        let context = first.context()
        let deleted = try context.performAndWait { try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: foreign)) as? NSPersistentHistoryResult }
        #expect((deleted?.result as? NSNumber)?.boolValue == true)
        #expect(try context.performAndWait { try context.transactions(after: nil) }.count == 1)
        // A token that does not name this store says nothing about it: the whole history comes back.
        #expect(try context.performAndWait { try context.transactions(after: foreign) }.count == 1)
        // A store of another coordinator given to currentPersistentHistoryToken is ignored.
        #expect(first.coordinator.currentPersistentHistoryToken(fromStores: [second.store]) == nil)

        let garbage = Data("not an archive".utf8)
        #expect((try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: garbage)) == nil)
        let wrongClass = try NSKeyedArchiver.archivedData(withRootObject: NSString(string: "token"), requiringSecureCoding: true)
        #expect((try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: wrongClass)) == nil)
    }

    @Test("fetch requests that are not of a history entity, or have sort descriptors, are refused with NSCoreDataError")
    func badFetchRequests() throws {
        let stack = try HistoryStack()
        let context = stack.context()
        let notes = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
        let sorted = try #require(NSPersistentHistoryTransaction.fetchRequest)
        sorted.sortDescriptors = [NSSortDescriptor(key: "timestamp", ascending: false)]
        for fetch in [notes, sorted] {
            let error = context.performAndWait { thrownError { _ = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch)) } }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSCoreDataError)
        }
        // A predicate over a key the history entity does not have matches nothing; it does not crash.
        try context.performAndWait {
            context.insertNote("n")
            try context.save()
        }
        let unknown = try #require(NSPersistentHistoryTransaction.fetchRequest)
        unknown.predicate = NSPredicate(format: "noSuchKey == 'x'")
        let result = context.performAndWait { try? context.history(.fetchHistory(withFetch: unknown)) as? [NSPersistentHistoryTransaction] }
        #expect(result.map(\.isEmpty) ?? true)
    }

    @Test("a store with history opened without tracking is read-only: history reads work, writes and deletes throw")
    func openedWithoutTracking() throws {
        let url = try HistoryStack().url
        do {
            let stack = try HistoryStack(url: url)
            let context = stack.context(author: "before")
            try context.performAndWait {
                context.insertNote("n")
                try context.save()
            }
            try stack.coordinator.remove(stack.store)
        }
        let reopened = try HistoryStack(url: url, options: nil)
        #expect(reopened.store.isReadOnly)
        let context = reopened.context()
        #expect(try context.performAndWait { try context.transactions(after: nil) }.map(\.author) == ["before"])
        let deleteError = context.performAndWait { thrownError { _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date())) } }
        #expect(deleteError?.domain == NSCocoaErrorDomain)
        #expect(deleteError?.code == NSPersistentStoreSaveError)
        let saveError = context.performAndWait {
            thrownError {
                context.insertNote("m")
                try context.save()
            }
        }
        #expect(saveError?.domain == NSCocoaErrorDomain)
        #expect(try RawSQL.value(url, "SELECT count(*) FROM ATRANSACTION") == .integer(1))
    }
}

/// History requests, fetches, counts and faults running while another thread removes the store: each works with the
/// stores still attached when it takes the coordinator's lock — reads their rows, finds nothing, or throws when none
/// is left — never a closed store's connection (found by OpenSwiftData's history follower, whose reads race a
/// container's `deleteAllData()`).
@Suite struct HistoryWhileStoresAreRemovedTests {
    @Test func aHistoryRequestRacingTheRemovalOfItsStoreThrowsOrReads() throws {
        let stack = try HistoryStack()
        let context = stack.context()
        try context.performAndWait {
            context.insertNote("a")
            try context.save()
        }
        let options = stack.store.options
        let reader = stack.context()
        let done = Locked(false)
        let box = ReaderBox(context: reader)
        let readerThread = Thread {
            while !done.withLock({ $0 }) {
                box.context.performAndWait {
                    _ = try? box.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
                    _ = (try? box.context.notes())?.first?.value(forKey: "title")   // a fault fired, too
                    _ = try? box.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note"))
                    box.context.reset()
                }
            }
        }
        readerThread.start()
        defer { done.withLock { $0 = true } }
        for _ in 0..<200 {
            guard let store = stack.coordinator.persistentStores.first else { break }
            try stack.coordinator.remove(store)
            _ = try stack.coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: stack.url, options: options)
        }
        let transactions = try reader.performAndWait {
            try reader.history(.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction]
        }
        #expect(transactions?.count == 1)
    }

    /// The reading context, handed to the reading thread.
    private struct ReaderBox: @unchecked Sendable {
        // @unchecked Sendable: the context is only used through performAndWait, which runs on its own queue.
        let context: NSManagedObjectContext
    }
}
