import Foundation
import Testing

@testable import OpenCoreData

// NSPersistentHistoryChangeRequest: fetching after a date, a token or a transaction; every result type; fetch
// requests of the history entities; deleting history and the expired-token error.

@Suite("Persistent history: change requests", .timeLimit(.minutes(1)))
struct HistoryFetchRequestTests {
    /// Three saves by three authors: alice inserts n1 and n2, bob updates n1, carol deletes n2.
    struct Fixture {
        let stack: HistoryStack
        let context: NSManagedObjectContext
        let n1: NSManagedObjectID
        let n2: NSManagedObjectID
        /// A date between each pair of saves.
        let betweenDates: [Date]

        init() throws {
            stack = try HistoryStack()
            let context = stack.context(name: "main")
            self.context = context
            var dates: [Date] = []
            (n1, n2) = try context.performAndWait {
                context.transactionAuthor = "alice"
                let n1 = context.insertNote("one"), n2 = context.insertNote("two")
                try context.save()
                Thread.sleep(forTimeInterval: 0.01)
                dates.append(Date())
                Thread.sleep(forTimeInterval: 0.01)
                context.transactionAuthor = "bob"
                n1.setValue("ONE", forKey: "title")
                try context.save()
                Thread.sleep(forTimeInterval: 0.01)
                dates.append(Date())
                Thread.sleep(forTimeInterval: 0.01)
                context.transactionAuthor = "carol"
                context.delete(n2)
                try context.save()
                return (n1.objectID, n2.objectID)
            }
            betweenDates = dates
        }

        func run(_ request: NSPersistentHistoryChangeRequest) throws -> NSPersistentHistoryResult {
            try context.performAndWait { try #require(try context.execute(request) as? NSPersistentHistoryResult) }
        }

        func transactions(_ request: NSPersistentHistoryChangeRequest) throws -> [NSPersistentHistoryTransaction] {
            try #require(try run(request).result as? [NSPersistentHistoryTransaction])
        }
    }

    @Test("fetchHistory(after: Date) returns the transactions committed after the date")
    func afterDate() throws {
        let f = try Fixture()
        #expect(try f.transactions(.fetchHistory(after: f.betweenDates[0])).map(\.author) == ["bob", "carol"])
        #expect(try f.transactions(.fetchHistory(after: f.betweenDates[1])).map(\.author) == ["carol"])
        #expect(try f.transactions(.fetchHistory(after: Date.distantPast)).map(\.author) == ["alice", "bob", "carol"])
        #expect(try f.transactions(.fetchHistory(after: Date())).isEmpty)
    }

    @Test("fetchHistory(after: token) and after a transaction return the later transactions; currentPersistentHistoryToken moves with saves")
    func afterTokenAndTransaction() throws {
        let stack = try HistoryStack()
        let coordinator = stack.coordinator
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) != nil)   // a tracking store, no history yet
        let context = stack.context(author: "app")
        let start = coordinator.currentPersistentHistoryToken(fromStores: [stack.store])
        try context.performAndWait {
            context.insertNote("a")
            try context.save()
        }
        let middle = coordinator.currentPersistentHistoryToken(fromStores: nil)
        #expect(middle != start)
        try context.performAndWait {
            context.insertNote("b")
            try context.save()
        }
        let all = try context.performAndWait { try context.transactions(after: start) }
        #expect(all.count == 2)
        #expect(try context.performAndWait { try context.transactions(after: nil) }.count == 2)
        let later = try context.performAndWait { try context.transactions(after: middle) }
        #expect(later.map(\.transactionNumber) == [all[1].transactionNumber])
        #expect(all[0].token == middle)
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == all[1].token)
        let afterFirst = try context.performAndWait {
            try context.history(.fetchHistory(after: all[0])) as? [NSPersistentHistoryTransaction] ?? []
        }
        #expect(afterFirst.map(\.transactionNumber) == [all[1].transactionNumber])
        let afterNilTransaction = try context.performAndWait {
            try context.history(.fetchHistory(after: nil as NSPersistentHistoryTransaction?)) as? [NSPersistentHistoryTransaction] ?? []
        }
        #expect(afterNilTransaction.count == 2)
        #expect(NSPersistentHistoryChangeRequest.fetchHistory(after: middle).token == middle)
        // Tokens archive and come back equal.
        let data = try NSKeyedArchiver.archivedData(withRootObject: try #require(middle), requiringSecureCoding: true)
        let restored = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: data)
        #expect(restored == middle)
        #expect(try context.performAndWait { try context.transactions(after: restored) }.count == 1)
    }

    @Test("result types: transactionsAndChanges, transactionsOnly, changesOnly, count, objectIDs, statusOnly")
    func resultTypes() throws {
        let f = try Fixture()
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        #expect(request.resultType == .transactionsAndChanges)
        let full = try f.run(request)
        #expect(full.resultType == .transactionsAndChanges)
        #expect((full.result as? [NSPersistentHistoryTransaction])?.map { $0.changes?.count } == [2, 1, 1])

        request.resultType = .transactionsOnly
        let bare = try f.run(request)
        #expect(bare.resultType == .transactionsOnly)
        let bareTransactions = try #require(bare.result as? [NSPersistentHistoryTransaction])
        #expect(bareTransactions.map(\.author) == ["alice", "bob", "carol"])
        #expect(bareTransactions.allSatisfy { $0.changes == nil })

        request.resultType = .changesOnly
        let changes = try #require(try f.run(request).result as? [NSPersistentHistoryChange])
        #expect(changes.map(\.changeType) == [.insert, .insert, .update, .delete])
        #expect(changes.map(\.changeID) == changes.map(\.changeID).sorted())
        #expect(changes.last?.changedObjectID == f.n2)
        #expect(changes.last?.transaction?.author == "carol")

        request.resultType = .count
        #expect((try f.run(request).result as? NSNumber)?.intValue == 4)

        request.resultType = .objectIDs
        let ids = try #require(try f.run(request).result as? [NSManagedObjectID])
        #expect(ids.count == 2 && Set(ids) == [f.n1, f.n2])

        request.resultType = .statusOnly
        let status = try f.run(request)
        #expect(status.resultType == .statusOnly)
        #expect((status.result as? NSNumber)?.boolValue == true)
    }

    @Test("a fetch request of the transaction entity filters transactions; one of the change entity filters their changes")
    func fetchRequests() throws {
        let f = try Fixture()
        let byAuthor = try #require(NSPersistentHistoryTransaction.fetchRequest)
        byAuthor.predicate = NSPredicate(format: "author != %@", "bob")
        #expect(try f.transactions(.fetchHistory(withFetch: byAuthor)).map(\.author) == ["alice", "carol"])

        // Combined with an anchor, as Apple's sample code does (request.fetchRequest = …).
        let combined = NSPersistentHistoryChangeRequest.fetchHistory(after: f.betweenDates[0])
        combined.fetchRequest = byAuthor
        #expect(try f.transactions(combined).map(\.author) == ["carol"])

        // Changes: the transactions that have matching changes, holding only those changes.
        let deletions = try #require(NSPersistentHistoryChange.fetchRequest)
        deletions.predicate = NSPredicate(format: "changeType == %d", NSPersistentHistoryChangeType.delete.rawValue)
        let filtered = try f.transactions(.fetchHistory(withFetch: deletions))
        #expect(filtered.map(\.author) == ["carol"])
        #expect(filtered.first?.changes?.map(\.changedObjectID) == [f.n2])
        let changesOnly = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: deletions)
        changesOnly.resultType = .changesOnly
        #expect((try f.run(changesOnly).result as? [NSPersistentHistoryChange])?.map(\.changedObjectID) == [f.n2])
        let byObject = try #require(NSPersistentHistoryChange.fetchRequest)
        byObject.predicate = NSPredicate(format: "changedObjectID == %@", f.n1)
        #expect(try f.transactions(.fetchHistory(withFetch: byObject)).map { $0.changes?.map(\.changeType) ?? [] } == [[.insert], [.update]])

        // fetchLimit applies to the transactions.
        let limited = try #require(NSPersistentHistoryTransaction.fetchRequest)
        limited.fetchLimit = 2
        #expect(try f.transactions(.fetchHistory(withFetch: limited)).map(\.author) == ["alice", "bob"])
        #expect(NSPersistentHistoryTransaction.entityDescription?.attributesByName["author"] != nil)
        #expect(NSPersistentHistoryChange.entityDescription(with: f.context)?.attributesByName["changeType"] != nil)
    }

    @Test("the coordinator's execute(_:with:) runs history requests too, and the request copies")
    func throughTheCoordinator() throws {
        let f = try Fixture()
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: f.betweenDates[1])
        let copy = try #require(request.copy() as? NSPersistentHistoryChangeRequest)
        copy.resultType = .changesOnly
        #expect(request.resultType == .transactionsAndChanges)
        let result = try f.context.performAndWait { try f.stack.coordinator.execute(copy, with: f.context) as? NSPersistentHistoryResult }
        #expect((result?.result as? [NSPersistentHistoryChange])?.map(\.changedObjectID) == [f.n2])
        #expect(request.description.contains("fetch"))
    }

    @Test("deleteHistory(before:) by date, transaction and token removes exactly the earlier transactions")
    func deleteHistory() throws {
        let f = try Fixture()
        let all = try f.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?))
        let deleteByDate = try f.run(.deleteHistory(before: f.betweenDates[0]))
        #expect(deleteByDate.resultType == .statusOnly)
        #expect((deleteByDate.result as? NSNumber)?.boolValue == true)
        #expect(try f.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?)).map(\.author) == ["bob", "carol"])
        #expect(try RawSQL.value(f.stack.url, "SELECT count(*) FROM ACHANGE") == .integer(2))
        // alice's string went with her only transaction.
        #expect(try RawSQL.value(f.stack.url, "SELECT count(*) FROM ATRANSACTIONSTRING WHERE ZNAME = 'alice'") == .integer(0))

        // Before a transaction: that transaction stays.
        _ = try f.run(.deleteHistory(before: all[2]))
        #expect(try f.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?)).map(\.author) == ["carol"])

        // Before a token (count result: the number of changes deleted).
        let context = f.context
        try context.performAndWait {
            context.transactionAuthor = "dave"
            context.insertNote("three")
            try context.save()
        }
        let countRequest = NSPersistentHistoryChangeRequest.deleteHistory(before: f.stack.coordinator.currentPersistentHistoryToken(fromStores: nil))
        countRequest.resultType = .count
        #expect((try f.run(countRequest).result as? NSNumber)?.intValue == 1)
        #expect(try f.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?)).map(\.author) == ["dave"])
        // Transaction numbers keep growing after deletions.
        try context.performAndWait {
            context.insertNote("four")
            try context.save()
        }
        let numbers = try f.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?)).map(\.transactionNumber)
        #expect(numbers.count == 2 && numbers[1] > numbers[0] && numbers[0] > all[2].transactionNumber)
        // deleteHistory(before: nil) deletes everything.
        _ = try f.run(.deleteHistory(before: nil as NSPersistentHistoryToken?))
        #expect(try f.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?)).isEmpty)
    }

    @Test("a token whose following history was deleted is expired: NSPersistentHistoryTokenExpiredError (134301)")
    func expiredToken() throws {
        let f = try Fixture()
        let all = try f.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?))
        let old = all[0].token
        // Deleting what the token already covers leaves it valid.
        _ = try f.run(.deleteHistory(before: all[1]))
        #expect(try f.transactions(.fetchHistory(after: old)).map(\.author) == ["bob", "carol"])
        // Deleting the transaction right after it expires it.
        _ = try f.run(.deleteHistory(before: all[2]))
        let error = thrownError { _ = try f.run(.fetchHistory(after: old)) }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSPersistentHistoryTokenExpiredError)
        #expect(error?.code == 134_301)
        // A token at the current end never expires.
        let current = f.stack.coordinator.currentPersistentHistoryToken(fromStores: nil)
        _ = try f.run(.deleteHistory(before: current))
        #expect(try f.transactions(.fetchHistory(after: current)).isEmpty)
    }
}
