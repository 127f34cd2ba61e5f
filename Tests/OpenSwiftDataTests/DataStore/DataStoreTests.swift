import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

/// Custom data stores (`DataStore`, iOS 18): a container made with a custom configuration keeps its models in that
/// store, through the same contexts, fetches, relationships and saves as the SQLite store.
@Suite struct DataStoreTests {
    private func container(_ url: URL, log: StoreLog = StoreLog()) throws -> ModelContainer {
        try ModelContainer(for: Voyage.self, configurations: JSONStoreConfiguration(fileURL: url, log: log))
    }

    @Test func aSavedModelGetsTheStoresPermanentIdentifierAndReadsBackInAnotherContainer() throws {
        let url = temporaryStoreURL("voyages.json")
        do {
            let context = ModelContext(try container(url))
            let voyage = Voyage(name: "Lisbon", days: 4, start: Date(timeIntervalSince1970: 1_000_000), rating: 4.5)
            context.insert(voyage)
            voyage.ports = [Port(name: "Belém"), Port(name: "Cascais")]
            #expect(voyage.persistentModelID.isTemporary)
            #expect(voyage.persistentModelID.storeIdentifier == nil)
            try context.save()
            #expect(!voyage.persistentModelID.isTemporary)
            #expect(voyage.persistentModelID.storeIdentifier == "voyages.json")
            #expect(voyage.ports.allSatisfy { !$0.persistentModelID.isTemporary })
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        let context = ModelContext(try container(url))
        let voyages = try context.fetch(FetchDescriptor<Voyage>())
        #expect(voyages.count == 1)
        let voyage = try #require(voyages.first)
        #expect(voyage.name == "Lisbon" && voyage.days == 4 && voyage.rating == 4.5)
        #expect(voyage.start == Date(timeIntervalSince1970: 1_000_000))
        #expect(Set(voyage.ports.map(\.name)) == ["Belém", "Cascais"])
        #expect(voyage.ports.allSatisfy { $0.voyage === voyage })
        #expect(try context.fetchCount(FetchDescriptor<Port>()) == 2)
    }

    @Test func referencesBetweenModelsInsertedInOneSaveAreRemappedInTheFile() throws {
        let url = temporaryStoreURL("voyages.json")
        let context = ModelContext(try container(url))
        let voyage = Voyage(name: "Porto", days: 2)
        context.insert(voyage)
        voyage.ports.append(Port(name: "Ribeira"))
        try context.save()
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(!text.contains("x-coredata:///"), "a temporary identifier was written: \(text)")
        let portID = try #require(voyage.ports.first).persistentModelID
        #expect(text.contains(portID.storeIdentifier ?? "?"))
    }

    @Test func predicatesSortsLimitsAndOffsetsRunInMemoryWhenTheStorePrefers() throws {
        let url = temporaryStoreURL("voyages.json")
        let log = StoreLog()
        let context = ModelContext(try container(url, log: log))
        for (name, days) in [("A", 5), ("B", 1), ("C", 3), ("D", 8), ("E", 2)] { context.insert(Voyage(name: name, days: days)) }
        try context.save()
        var descriptor = FetchDescriptor<Voyage>(predicate: #Predicate { $0.days > 1 }, sortBy: [SortDescriptor(\.days, order: .reverse)])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 2
        let reader = ModelContext(try container(url, log: log))
        #expect(try reader.fetch(descriptor).map(\.name) == ["A", "C"])
        #expect(try reader.fetchCount(FetchDescriptor<Voyage>(predicate: #Predicate { $0.days >= 3 })) == 3)
        #expect(try reader.fetchIdentifiers(FetchDescriptor<Voyage>(sortBy: [SortDescriptor(\.name)])).count == 5)
        // The store saw the app's descriptor first (and refused it), then the plain one.
        let fetches = log.fetches.withLock { $0 }
        #expect(fetches.contains { $0.hasPredicate && $0.sortCount == 1 && $0.limit == 2 })
        #expect(fetches.contains { !$0.hasPredicate && $0.sortCount == 0 && $0.limit == nil })
    }

    @Test func pendingChangesCountInAFetchOfACustomStore() throws {
        let url = temporaryStoreURL("voyages.json")
        let context = ModelContext(try container(url))
        context.insert(Voyage(name: "Saved", days: 3))
        try context.save()
        context.insert(Voyage(name: "Pending", days: 9))
        let names = try context.fetch(FetchDescriptor<Voyage>(predicate: #Predicate { $0.days > 2 }, sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Pending", "Saved"])
    }

    @Test func updatesAndDeletesReachTheStoreWithDeleteRules() throws {
        let url = temporaryStoreURL("voyages.json")
        let log = StoreLog()
        let context = ModelContext(try container(url, log: log))
        context.author = "editor"
        let voyage = Voyage(name: "Rome", days: 3)
        context.insert(voyage)
        voyage.ports = [Port(name: "Ostia")]
        context.insert(Voyage(name: "Kept", days: 1))
        try context.save()
        voyage.days = 7
        try context.save()
        #expect(try ModelContext(try container(url)).fetch(FetchDescriptor<Voyage>(predicate: #Predicate { $0.name == "Rome" })).first?.days == 7)
        context.delete(voyage)
        try context.save()
        let other = ModelContext(try container(url))
        #expect(try other.fetch(FetchDescriptor<Voyage>()).map(\.name) == ["Kept"])
        #expect(try other.fetchCount(FetchDescriptor<Port>()) == 0, "the cascade rule deletes the port too")
        let saves = log.saves.withLock { $0 }
        #expect(saves.map(\.inserted) == [3, 0, 0])
        #expect(saves[1].updated == 1)
        #expect(saves[2].deleted == 2)
        #expect(saves.allSatisfy { $0.author == "editor" })
    }

    @Test func anIdentifierMadeByTheStoreFindsItsModel() throws {
        let url = temporaryStoreURL("voyages.json")
        let context = ModelContext(try container(url))
        let voyage = Voyage(name: "Nice", days: 2)
        context.insert(voyage)
        try context.save()
        let id = voyage.persistentModelID
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(id))
        #expect(decoded == id)
        let other = ModelContext(try container(url))
        let fetched = try #require(try other.fetch(FetchDescriptor<Voyage>()).first)
        #expect(fetched.persistentModelID == id)
        #expect((other.model(for: decoded) as? Voyage)?.name == "Nice")
        context.insert(Voyage(name: "Other", days: 1))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Voyage>(predicate: #Predicate { $0.persistentModelID == id })).map(\.name) == ["Nice"])
    }

    @Test func eachContextIsAnEditingStateTheStoreIsToldAbout() throws {
        let url = temporaryStoreURL("voyages.json")
        let log = StoreLog()
        let container = try container(url, log: log)
        var id: UUID?
        do {
            let context = ModelContext(container)
            id = context.editingState.id
            #expect(context.editingState.id == context.editingState.id)
            context.author = "someone"
            #expect(context.editingState.author == "someone")
        }
        let states = log.states.withLock { $0 }
        #expect(states.contains { $0.event == "initialize" && $0.id == id })
        #expect(states.contains { $0.event == "invalidate" && $0.id == id })
    }

    @Test func eraseEmptiesTheStore() throws {
        let url = temporaryStoreURL("voyages.json")
        let container = try container(url)
        let context = ModelContext(container)
        context.insert(Voyage(name: "Gone", days: 1))
        try context.save()
        try container.erase()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Voyage>()) == 0)
    }

    @Test func aConfigurationThatDoesNotValidateStopsTheContainer() throws {
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            try ModelContainer(for: Voyage.self, configurations: JSONStoreConfiguration(fileURL: temporaryStoreURL("x.json"), invalid: true))
        }
    }

    @Test func aStoreErrorReachesTheFetchAndTheStoreStaysIntact() throws {
        let url = temporaryStoreURL("voyages.json")
        let context = ModelContext(try container(url))
        context.insert(Voyage(name: "Safe", days: 1))
        try context.save()
        try Data("not json".utf8).write(to: url)
        #expect(throws: (any Error).self) { try ModelContext(try container(url)).fetch(FetchDescriptor<Voyage>()) }
    }
}
