import Foundation
import OpenSwiftData
import Testing

@ModelActor actor TripImporter {
    func importTrips(_ names: [String]) throws -> [PersistentIdentifier] {
        let trips = names.map { Trip(name: $0) }
        for trip in trips { modelContext.insert(trip) }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }

    func rename(_ id: PersistentIdentifier, to name: String) throws -> Bool {
        guard let trip = self[id, as: Trip.self] else { return false }
        trip.name = name
        try modelContext.save()
        return true
    }
}

@Suite("ModelActor")
struct ModelActorTests {
    @Test func actorsImportConcurrentlyAndHandIdentifiersBetweenThemselves() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: directory.appendingPathComponent("trips.store")))
        let importers = (0..<4).map { _ in TripImporter(modelContainer: container) }
        let ids = try await withThrowingTaskGroup(of: [PersistentIdentifier].self) { group in
            for (index, importer) in importers.enumerated() {
                for batch in 0..<5 {
                    group.addTask { try await importer.importTrips((0..<20).map { "t\(index)-\(batch)-\($0)" }) }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(ids.count == 400 && Set(ids).count == 400 && ids.allSatisfy { !$0.isTemporary })
        #expect(try await importers[0].rename(ids[399], to: "renamed"), "another actor's row, by identifier")
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 400)
        #expect((context.model(for: ids[399]) as? Trip)?.name == "renamed")
        let stale = try await importers[1].importTrips(["x"])[0]
        context.delete(try #require(context.model(for: stale) as? Trip))
        try context.save()
        #expect(try await importers[2].rename(stale, to: "gone") == false, "a deleted row is nil through the subscript")
    }
}

extension ModelActorTests {
    @Test func aContextShowsAnotherContextsSaveWhenNextUsedKeepingItsOwnChanges() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let importer = TripImporter(modelContainer: container)
        let ids = try await importer.importTrips(["Lisbon", "Porto"])
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Lisbon", "Porto"])
        trips[1].start = Date(timeIntervalSince1970: 7)          // an unsaved change of this context
        #expect(try await importer.rename(ids[0], to: "Lisboa"))
        #expect(try await importer.rename(ids[1], to: "Oporto"))
        #expect(trips[0].name == "Lisbon", "not merged until the context is used")
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 2)
        #expect(trips[0].name == "Lisboa" && trips[1].name == "Oporto")
        #expect(trips[1].start == Date(timeIntervalSince1970: 7) && context.hasChanges, "its own change stays on top")
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.start != nil })).map(\.name) == ["Oporto"])
    }

    @MainActor @Test func theMainContextCatchesUpOnTheMainActor() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let main = container.mainContext
        #expect(main === container.mainContext)
        let importer = TripImporter(modelContainer: container)
        let id = try await importer.importTrips(["Lisbon"])[0]
        let trip = try #require(main.model(for: id) as? Trip)
        #expect(trip.name == "Lisbon")
        #expect(try await importer.rename(id, to: "Lisboa"))
        for _ in 0..<100 where trip.name != "Lisboa" { await Task.yield() }
        #expect(trip.name == "Lisboa", "merged without the context being used")
    }
}

/// A public model actor (as a library exports one): its generated members are public.
@ModelActor public actor PublicTripStore {
    public func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Trip>()) }
}

extension ModelActorTests {
    @Test func aPublicModelActorWorks() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let store = PublicTripStore(modelContainer: container)
        #expect(store.modelContainer === container)
        #expect(try await store.count() == 0)
    }
}
