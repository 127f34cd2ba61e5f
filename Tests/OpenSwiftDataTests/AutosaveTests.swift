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

    @Test func aContextYouMakeDoesNotAutosave() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        #expect(!context.autosaveEnabled)
        context.insert(Trip(name: "Lisbon"))
        for _ in 0..<20 { await Task.yield() }
        #expect(context.hasChanges)
    }
}
