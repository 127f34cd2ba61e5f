import Foundation
import Testing

@testable import OpenCoreData

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
