import Foundation
import Testing

import class OpenCoreData.NSCompoundPredicate
import class OpenCoreData.NSPredicate

@testable import OpenCoreData

// Fetch requests of the history entities: Apple's attributes (Apple's `_PFPersistentHistoryFetchModel`, iOS 18) and
// predicates over them — tokens (`token > %@`, `token == %@`, as CoreDataPlus's tests against Apple's framework use
// them), entities (`changedEntity == %@`, subentities not included), change types, authors and dates.

@Suite("Persistent history: predicates of history fetch requests", .timeLimit(.minutes(1)))
struct HistoryPredicateTests {
    typealias Fixture = HistoryFetchRequestTests.Fixture

    /// The authors of the transactions a transaction-entity predicate selects.
    static func authors(_ f: Fixture, _ predicate: NSPredicate) throws -> [String?] {
        let fetch = try #require(NSPersistentHistoryTransaction.fetchRequest)
        fetch.predicate = predicate
        let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch)
        request.resultType = .transactionsOnly
        return try f.transactions(request).map(\.author)
    }

    /// The changes a change-entity predicate selects.
    static func changes(_ context: NSManagedObjectContext, _ predicate: NSPredicate, after token: NSPersistentHistoryToken? = nil) throws -> [NSPersistentHistoryChange] {
        let fetch = try #require(NSPersistentHistoryChange.fetchRequest)
        fetch.predicate = predicate
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
        request.fetchRequest = fetch
        request.resultType = .changesOnly
        return try context.performAndWait { try #require(try context.history(request) as? [NSPersistentHistoryChange]) }
    }

    @Test("the history entities carry exactly Apple's attributes, with Apple's types")
    func entitiesHaveApplesAttributes() throws {
        let context = try Fixture().context
        for transaction in [NSPersistentHistoryTransaction.entityDescription, NSPersistentHistoryTransaction.entityDescription(with: context),
                            NSPersistentHistoryTransaction.fetchRequest?.entity] {
            let entity = try #require(transaction)
            #expect(entity.name == "Transaction")
            #expect(entity.attributesByName.mapValues(\.attributeType) == [
                "author": .stringAttributeType, "contextName": .stringAttributeType, "bundleID": .stringAttributeType,
                "processID": .stringAttributeType, "timestamp": .dateAttributeType, "transactionNumber": .integer64AttributeType,
                "token": .integer64AttributeType,
            ])
            #expect(entity.relationshipsByName.isEmpty)
        }
        for change in [NSPersistentHistoryChange.entityDescription, NSPersistentHistoryChange.entityDescription(with: context),
                       NSPersistentHistoryChange.fetchRequest?.entity] {
            let entity = try #require(change)
            #expect(entity.name == "Change")
            #expect(entity.attributesByName.mapValues(\.attributeType) == [
                "changeID": .integer64AttributeType, "changeType": .integer64AttributeType, "changedEntity": .integer64AttributeType,
                "changedObjectID": .objectIDAttributeType,
            ])
        }
    }

    @Test("token > %@, == %@, >= %@, <= %@ select transactions by the transaction each token ends with")
    func tokenComparisons() throws {
        let f = try Fixture()   // alice, bob, carol
        let all = try f.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?))
        let (alice, bob, carol) = (all[0].token, all[1].token, all[2].token)
        #expect(try Self.authors(f, NSPredicate(format: "token > %@", alice)) == ["bob", "carol"])
        #expect(try Self.authors(f, NSPredicate(format: "%K > %@", "token", bob)) == ["carol"])
        #expect(try Self.authors(f, NSPredicate(format: "token > %@", carol)) == [])
        #expect(try Self.authors(f, NSPredicate(format: "token == %@", bob)) == ["bob"])
        #expect(try Self.authors(f, NSPredicate(format: "token = %@", carol)) == ["carol"])
        #expect(try Self.authors(f, NSPredicate(format: "token >= %@", bob)) == ["bob", "carol"])
        #expect(try Self.authors(f, NSPredicate(format: "token <= %@", bob)) == ["alice", "bob"])
        #expect(try Self.authors(f, NSPredicate(format: "token != %@", bob)) == ["alice", "carol"])
        #expect(try Self.authors(f, NSPredicate(format: "%@ < token", alice)) == ["bob", "carol"])
        // The current token is the last transaction's.
        let current = try #require(f.stack.coordinator.currentPersistentHistoryToken(fromStores: nil))
        #expect(try Self.authors(f, NSPredicate(format: "token == %@", current)) == ["carol"])
        // With other attributes.
        let compound = NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSPredicate(format: "token > %@", alice), NSPredicate(format: "author != %@", "carol"),
        ])
        #expect(try Self.authors(f, compound) == ["bob"])
        #expect(try Self.authors(f, NSPredicate(format: "transactionNumber > %lld", all[0].transactionNumber)) == ["bob", "carol"])
        #expect(try Self.authors(f, NSPredicate(format: "timestamp > %@", f.betweenDates[0])) == ["bob", "carol"])
        #expect(try Self.authors(f, NSPredicate(format: "author IN %@", ["alice", "carol"])) == ["alice", "carol"])
        #expect(try Self.authors(f, NSPredicate(format: "contextName == %@ AND processID != %@", "main", "")).count == 3)
    }

    @Test("a token in a predicate whose transaction is not in the history — an empty history's, or a deleted one — is expired (134301)")
    func expiredTokensInPredicates() throws {
        let stack = try HistoryStack()
        let context = stack.context(name: "main", author: "app")
        let emptyHistoryToken = try #require(stack.coordinator.currentPersistentHistoryToken(fromStores: nil))
        try context.performAndWait {
            for title in ["a", "b", "c"] {
                context.insertNote(title)
                try context.save()
            }
        }
        let all = try context.performAndWait { try context.transactions(after: nil) }
        func run(_ predicate: NSPredicate) throws -> Int {
            let fetch = try #require(NSPersistentHistoryTransaction.fetchRequest)
            fetch.predicate = predicate
            return try context.performAndWait { (try context.history(.fetchHistory(withFetch: fetch)) as? [Any])?.count ?? -1 }
        }
        #expect(thrownError { _ = try run(NSPredicate(format: "token > %@", emptyHistoryToken)) }?.code == NSPersistentHistoryTokenExpiredError)
        // fetchHistory(after:) takes that token: everything after it.
        #expect(try context.performAndWait { try context.transactions(after: emptyHistoryToken) }.count == 3)
        #expect(try run(NSPredicate(format: "token > %@", all[0].token)) == 2)
        _ = try context.performAndWait { try context.history(.deleteHistory(before: all[1])) }
        let expired = thrownError { _ = try run(NSPredicate(format: "token > %@", all[0].token)) }
        #expect(expired?.domain == NSCocoaErrorDomain)
        #expect(expired?.code == 134_301)
        #expect(try run(NSPredicate(format: "token >= %@", all[1].token)) == 2)
    }

    @Test("changedEntity == %@ selects the changes of exactly that entity (not its subentities), also with another model's entity")
    func changedEntity() throws {
        let stores = try HistoryModelShapesTests.TwoStores()
        let context = stores.context(author: "app")
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("item", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "SpecialItem", into: context).setValue("special", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context).setValue("tag", forKey: "label")
            NSEntityDescription.insertNewObject(forEntityName: "Log", into: context).setValue("log", forKey: "text")
            try context.save()
        }
        func entities(_ predicate: NSPredicate) throws -> [String] {
            try Self.changes(context, predicate).compactMap(\.changedObjectID.entity.name).sorted()
        }
        let model = ShapesModel.shared
        #expect(try entities(NSPredicate(format: "changedEntity == %@", model.entitiesByName["Item"]!)) == ["Item"])
        #expect(try entities(NSPredicate(format: "changedEntity == %@ OR changedEntity == %@", model.entitiesByName["SpecialItem"]!, model.entitiesByName["Log"]!))
                    == ["Log", "SpecialItem"])
        #expect(try entities(NSPredicate(format: "changedEntity IN %@", [model.entitiesByName["Tag"]!, model.entitiesByName["Item"]!])) == ["Item", "Tag"])
        #expect(try entities(NSPredicate(format: "changedEntity != %@", model.entitiesByName["Item"]!)) == ["Log", "SpecialItem", "Tag"])
        // An equal entity of another model instance names the same entity.
        let otherModel = ShapesModel.make()
        #expect(try entities(NSPredicate(format: "changedEntity == %@", otherModel.entitiesByName["Tag"]!)) == ["Tag"])
        // An entity no store has matches nothing.
        #expect(try entities(NSPredicate(format: "changedEntity == %@", HistoryModel.shared.entitiesByName["Note"]!)) == [])
    }

    @Test("changeType, changeID, changedObjectID and token predicates over changes; transaction key paths and storeID as an extension")
    func changePredicates() throws {
        let f = try Fixture()   // alice inserts n1 n2, bob updates n1, carol deletes n2
        let all = try f.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?))
        let noteEntity = try #require(HistoryModel.shared.entitiesByName["Note"])
        let deletesOfNotes = NSPredicate(format: "changeType == %d AND changedEntity == %@", NSPersistentHistoryChangeType.delete.rawValue, noteEntity)
        #expect(try Self.changes(f.context, deletesOfNotes).map(\.changedObjectID) == [f.n2])
        #expect(try Self.changes(f.context, NSPredicate(format: "changeType != %d", NSPersistentHistoryChangeType.insert.rawValue)).map(\.changeType) == [.update, .delete])
        let firstChange = try #require(all[0].changes?.first)
        #expect(try Self.changes(f.context, NSPredicate(format: "changeID > %lld", firstChange.changeID)).count == 3)
        #expect(try Self.changes(f.context, NSPredicate(format: "changedObjectID == %@ AND changeType == %d", f.n1, NSPersistentHistoryChangeType.update.rawValue))
                    .map(\.changedObjectID) == [f.n1])
        // Apple's change fetches accept `token` too: the changes of later transactions.
        #expect(try Self.changes(f.context, NSPredicate(format: "token > %@", all[0].token)).map(\.changeType) == [.update, .delete])
        // Extensions (Apple's entities have no such attributes): the change's transaction and the store's identifier.
        #expect(try Self.changes(f.context, NSPredicate(format: "transaction.author == %@", "bob")).map(\.changedObjectID) == [f.n1])
        #expect(try Self.changes(f.context, NSPredicate(format: "transaction.token <= %@", all[1].token)).count == 3)
        #expect(try Self.authors(f, NSPredicate(format: "storeID == %@", f.stack.store.identifier!)).count == 3)
        // Combined with an anchor.
        #expect(try Self.changes(f.context, NSPredicate(format: "changedEntity == %@", noteEntity), after: all[1].token).map(\.changeType) == [.delete])
    }

    @Test("with two stores, a token stands for each store's own transaction number")
    func tokensOfTwoStores() throws {
        let stores = try HistoryModelShapesTests.TwoStores()
        let context = stores.context(author: "app")
        try context.performAndWait {
            for round in 0..<2 {
                NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("item \(round)", forKey: "name")
                NSEntityDescription.insertNewObject(forEntityName: "Log", into: context).setValue("log \(round)", forKey: "text")
                try context.save()
            }
        }
        let all = try context.performAndWait { try context.transactions(after: nil) }
        #expect(all.count == 4)   // one transaction per store per save
        let middle = try #require(stores.coordinator.currentPersistentHistoryToken(fromStores: nil))
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("item 2", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "Log", into: context).setValue("log 2", forKey: "text")
            try context.save()
        }
        let fetch = try #require(NSPersistentHistoryTransaction.fetchRequest)
        fetch.predicate = NSPredicate(format: "token > %@", middle)
        let later = try context.performAndWait { try #require(try context.history(.fetchHistory(withFetch: fetch)) as? [NSPersistentHistoryTransaction]) }
        #expect(Set(later.map(\.storeID)) == [stores.main.identifier, stores.side.identifier])
        #expect(later.flatMap { $0.changes ?? [] }.count == 2)
    }
}
