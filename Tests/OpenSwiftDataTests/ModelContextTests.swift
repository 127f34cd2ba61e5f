import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

@Suite("ModelContext")
struct ModelContextTests {
    static func container(_ url: URL? = nil) throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func insertSaveAndFetchSortedWithAPredicate() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        let lisbon = Trip(name: "Lisbon")
        #expect(lisbon.modelContext == nil && lisbon.name == "Lisbon")
        context.insert(lisbon)
        context.insert(Trip(name: "Porto", start: Date(timeIntervalSince1970: 10)))
        context.insert(Trip(name: "Faro"))
        #expect(lisbon.modelContext == context && context.hasChanges)
        #expect(lisbon.persistentModelID.isTemporary)
        try context.save()
        #expect(!context.hasChanges && !lisbon.persistentModelID.isTemporary)

        let other = ModelContext(container)
        let sorted = try other.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(sorted.map(\.name) == ["Faro", "Lisbon", "Porto"])
        let withStart = try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.start != nil }))
        #expect(withStart.map(\.name) == ["Porto"])
        #expect(withStart.first?.start == Date(timeIntervalSince1970: 10))
        let named = try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name.starts(with: "P") || $0.name == "Faro" }, sortBy: [SortDescriptor(\.name, order: .reverse)]))
        #expect(named.map(\.name) == ["Porto", "Faro"])
        #expect(try other.fetchCount(FetchDescriptor<Trip>()) == 3)
        var limited = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        limited.fetchLimit = 1
        limited.fetchOffset = 1
        #expect(try other.fetch(limited).map(\.name) == ["Lisbon"])
        #expect(sorted[1] === other.model(for: lisbon.persistentModelID) as? Trip, "one instance per row in a context")
    }

    @Test func relationshipsKeepTheirOtherSideAndCascade() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon")
        let belem = Stop(city: "Belém", nights: 2)
        trip.stops = [belem, Stop(city: "Sintra")]   // not inserted yet: the values wait in the models
        context.insert(trip)                          // the stops are inserted with it
        #expect(belem.modelContext == context)
        #expect(belem.trip === trip, "the inverse is kept")
        #expect(Set(trip.stops.map(\.city)) == ["Belém", "Sintra"])
        try context.save()

        let other = ModelContext(container)
        let stops = try other.fetch(FetchDescriptor<Stop>(predicate: #Predicate { $0.trip?.name == "Lisbon" }, sortBy: [SortDescriptor(\.city)]))
        #expect(stops.map(\.city) == ["Belém", "Sintra"] && stops.map(\.nights) == [2, 1])
        let fetched = try #require(stops.first?.trip)
        other.delete(fetched)
        try other.save()
        #expect(try other.fetchCount(FetchDescriptor<Stop>()) == 0, "cascade")
    }

    @Test func aUniqueAttributeUpserts() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        context.insert(Trip(name: "Lisbon"))
        try context.save()
        context.insert(Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 5)))
        try context.save()
        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        #expect(trips.count == 1)
        #expect(trips.first?.start == Date(timeIntervalSince1970: 5), "the insert's values win")
    }

    @Test func rollbackAndTransaction() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon")
        context.insert(trip)
        try context.save()
        trip.name = "Porto"
        #expect(context.changedModelsArray.count == 1)
        context.rollback()
        #expect(trip.name == "Lisbon" && !context.hasChanges)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try context.transaction {
                context.insert(Trip(name: "Faro"))
                throw Stop()
            }
        }
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
        try context.transaction { context.insert(Trip(name: "Faro")) }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 2)
    }

    @Test func theStoreIsCoreDatasSQLiteFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("trips.store")
        do {
            let context = ModelContext(try Self.container(url))
            let trip = Trip(name: "Lisbon")
            trip.stops = [Stop(city: "Belém")]
            context.insert(trip)
            try context.save()
        }
        let again = ModelContext(try Self.container(url))
        let trips = try again.fetch(FetchDescriptor<Trip>())
        #expect(trips.map(\.name) == ["Lisbon"] && trips.first?.stops.map(\.city) == ["Belém"])
    }
}

extension ModelContextTests {
    @Test func aBatchedFetchCountsEverythingAndReadsWhatIsReached() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        for index in 0..<250 { context.insert(Trip(name: String(format: "t%03d", index))) }
        try context.save()
        let other = ModelContext(container)
        let trips = try other.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 100)
        #expect(trips.count == 250)
        #expect(trips[0].name == "t000" && trips[249].name == "t249" && trips[120].name == "t120")
        #expect(Array(trips.prefix(3)).map(\.name) == ["t000", "t001", "t002"])
        let ids = try other.fetchIdentifiers(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 100)
        #expect(ids.count == 250 && ids[120] == trips[120].persistentModelID)
    }

    @Test func undoRevertsTheLastChanges() throws {
        let context = ModelContext(try Self.container())
        context.undoManager = UndoManager()
        let trip = Trip(name: "Lisbon")
        context.insert(trip)
        try context.save()
        trip.name = "Porto"
        context.processPendingChanges()
        context.undoManager?.undo()
        #expect(trip.name == "Lisbon")
    }

    @Test func deleteAllDataEmptiesTheStore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = try Self.container(directory.appendingPathComponent("trips.store"))
        let context = ModelContext(container)
        context.insert(Trip(name: "Lisbon"))
        try context.save()
        container.deleteAllData()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 0)
        let again = ModelContext(container)
        again.insert(Trip(name: "Porto"))
        try again.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Porto"])
    }
}

extension ModelContextTests {
    @Test func predicatesCompareIdentifiers() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        let lisbon = Trip(name: "Lisbon"), porto = Trip(name: "Porto")
        lisbon.stops = [Stop(city: "Belém"), Stop(city: "Sintra")]
        porto.stops = [Stop(city: "Ribeira")]
        context.insert(lisbon)
        context.insert(porto)
        try context.save()
        let id = lisbon.persistentModelID
        let other = ModelContext(container)
        #expect(try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.persistentModelID == id })).map(\.name) == ["Lisbon"])
        #expect(try other.fetch(FetchDescriptor<Stop>(predicate: #Predicate { $0.trip?.persistentModelID == id }, sortBy: [SortDescriptor(\.city)]))
            .map(\.city) == ["Belém", "Sintra"])
        #expect(try other.fetchCount(FetchDescriptor<Stop>(predicate: #Predicate { $0.trip?.persistentModelID != id })) == 1)
    }
}

extension ModelContextTests {
    @Test func theDefaultStoreIsDefaultDotStoreInTheContainersDirectory() {
        let configuration = ModelConfiguration()
        #expect(configuration.url.lastPathComponent == "default.store")
        #expect(configuration.url.deletingLastPathComponent().path == OpenCoreData.NSPersistentContainer.defaultDirectoryURL().path,
                "the directory Core Data's containers use ($XDG_DATA_HOME/<program>, else ~/.local/share/<program>)")
        #expect(ModelConfiguration("Trips").url.lastPathComponent == "Trips.store")
        #expect(ModelConfiguration(isStoredInMemoryOnly: true).url.path == "/dev/null")
    }

    @Test func propertiesToFetchIsAHintEveryValueIsRead() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        context.insert(Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 9)))
        try context.save()
        var descriptor = FetchDescriptor<Trip>()
        descriptor.propertiesToFetch = [\.name]
        let trip = try #require(try ModelContext(container).fetch(descriptor).first)
        #expect(trip.name == "Lisbon" && trip.start == Date(timeIntervalSince1970: 9))
    }
}

extension ModelContextTests {
    @Test func cloudKitDatabases() throws {
        let local = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true, cloudKitDatabase: .none))
        #expect(local.configurations.first?.cloudKitDatabase == ModelConfiguration.CloudKitDatabase.none && local.migrationPlan == nil)
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true, cloudKitDatabase: .private("iCloud.example")))
        }
    }
}

extension ModelContextTests {
    /// SwiftData's most reported failure is a predicate that crashes at fetch: here it throws a clear error.
    @Test func aPredicateTheStoreCannotRunThrowsAtFetch() throws {
        let context = ModelContext(try Self.container())
        context.insert(Trip(name: "Lisbon"))
        try context.save()
        let typeTest = #Predicate<Trip> { trip in (trip.start as Any) is Date }
        let error = #expect(throws: SwiftDataError.self) { try context.fetch(FetchDescriptor(predicate: typeTest)) }
        #expect(error == .unsupportedPredicate && (error?.reason.contains("Predicate") ?? false), "\(String(describing: error))")
        let unknownKey = #Predicate<Trip> { $0.name.count > 3 }
        #expect(try context.fetch(FetchDescriptor(predicate: unknownKey)).map(\.name) == ["Lisbon"], "a string's count is its length")
    }
}
