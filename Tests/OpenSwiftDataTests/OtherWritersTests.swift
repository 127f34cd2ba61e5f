import Foundation
import OpenSwiftData
import Testing

/// Reads a trip count through an observer in the actor's own context (the observer lives in the actor).
@ModelActor actor TripWatcher {
    private var observer: ResultsObserver<Trip, Never>?

    func start() throws -> Int {
        let observer = try ResultsObserver<Trip, Never>(modelContext: modelContext)
        self.observer = observer
        return observer.results.count
    }

    var count: Int { observer?.results.count ?? -1 }
}

/// Other writers' saves — another container on the same file (as another process would be) — reach a container's
/// contexts as its own contexts' saves do.
@Suite("Other writers")
struct OtherWritersTests {
    static func store() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).appendingPathComponent("trips.store")
    }

    static func waitUntil(_ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try condition()
    }

    @Test func aModelReadBeforeAnotherContainersSaveShowsTheSavedValueOnceMerged() async throws {
        let url = Self.store()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let here = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        here.insert(Trip(name: "Lisbon"))
        try here.save()
        let trip = try #require(try here.fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.name == "Lisbon")

        let there = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        let same = try #require(try there.fetch(FetchDescriptor<Trip>()).first)
        same.name = "Lisboa"
        there.insert(Trip(name: "Porto"))
        try there.save()

        // The registered model's value is the store's once the other container's save is merged (when the context is
        // next used): without the feed of other writers it would keep "Lisbon" until refreshed by hand.
        #expect(try await Self.waitUntil {
            here.processPendingChanges()
            return trip.name == "Lisboa"
        })
        #expect(try here.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Lisboa", "Porto"])
    }

    @Test func anObserverInAModelActorFollowsAnotherContextsSaveByItself() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let watcher = TripWatcher(modelContainer: container)
        #expect(try await watcher.start() == 0)
        let writer = ModelContext(container)
        writer.insert(Trip(name: "Lisbon"))
        writer.insert(Trip(name: "Porto"))
        try writer.save()
        // Nobody uses the actor's context: the save is merged between the actor's jobs, and the observer updated.
        let deadline = ContinuousClock.now + .seconds(10)
        var count = await watcher.count
        while count != 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            count = await watcher.count
        }
        #expect(count == 2)
    }
}
