import Foundation
import OpenSwiftData
import Testing

@Suite("Autosave")
struct AutosaveTests {
    @MainActor @Test func theMainContextSavesChangesByItselfOnTheMainActor() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let main = container.mainContext
        #expect(main.autosaveEnabled, "on by default for the main context")
        let trip = Trip(name: "Lisbon")
        main.insert(trip)
        trip.start = Date(timeIntervalSince1970: 1)
        #expect(main.hasChanges, "not saved while the code making the changes runs")
        for _ in 0..<100 where main.hasChanges { await Task.yield() }
        #expect(!main.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.start) == [Date(timeIntervalSince1970: 1)])

        main.autosaveEnabled = false
        trip.name = "Porto"
        for _ in 0..<20 { await Task.yield() }
        #expect(main.hasChanges, "off: nothing saves")
    }

    @Test func aContextYouMakeDoesNotAutosaveByDefault() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        #expect(!context.autosaveEnabled)
        context.insert(Trip(name: "Lisbon"))
        for _ in 0..<20 { await Task.yield() }
        #expect(context.hasChanges)
    }
}

@ModelActor actor AutosavingImporter {
    func add(_ name: String) {
        modelContext.autosaveEnabled = true
        modelContext.insert(Trip(name: name))
    }
    var hasChanges: Bool { modelContext.hasChanges }
}

extension AutosaveTests {
    @Test func aModelActorsContextAutosavesBetweenItsJobs() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let importer = AutosavingImporter(modelContainer: container)
        await importer.add("Lisbon")
        for _ in 0..<200 where await importer.hasChanges { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await importer.hasChanges == false)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
    }
}
