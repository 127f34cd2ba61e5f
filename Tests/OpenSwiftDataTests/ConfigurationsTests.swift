import Foundation
import OpenSwiftData
import Testing

/// A model with no relationship to trips, kept in a store of its own.
@Model final class Preference {
    @Attribute(.unique) var key: String
    var value: String

    init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// A container split across stores by configuration, as SwiftData splits a schema: each configuration's schema says
/// which models its store holds.
@Suite("Configurations")
struct ConfigurationsTests {
    static func directory() -> URL { FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString) }

    @Test func eachConfigurationsStoreHoldsItsOwnModels() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tripsURL = directory.appendingPathComponent("trips.store"), settingsURL = directory.appendingPathComponent("settings.store")
        let trips = ModelConfiguration("Trips", schema: Schema([Trip.self]), url: tripsURL)
        let settings = ModelConfiguration("Settings", schema: Schema([Preference.self]), url: settingsURL)
        do {
            let container = try ModelContainer(for: Schema([Trip.self, Preference.self]), configurations: trips, settings)
            #expect(container.configurations.count == 2)
            let context = ModelContext(container)
            let lisbon = Trip(name: "Lisbon")
            lisbon.stops = [Stop(city: "Sintra")]
            context.insert(lisbon)
            context.insert(Preference(key: "units", value: "metric"))
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
            #expect(try context.fetchCount(FetchDescriptor<Preference>()) == 1)
            let preference = try #require(try context.fetch(FetchDescriptor<Preference>()).first)
            // Two stores: the trip's and its stop's rows are in one, the preference's in the other.
            #expect(lisbon.persistentModelID.storeIdentifier != nil)
            #expect(lisbon.persistentModelID.storeIdentifier == lisbon.stops[0].persistentModelID.storeIdentifier)
            #expect(lisbon.persistentModelID.storeIdentifier != preference.persistentModelID.storeIdentifier)
        }
        #expect(FileManager.default.fileExists(atPath: tripsURL.path) && FileManager.default.fileExists(atPath: settingsURL.path))
        // And the split container opens both again.
        let again = ModelContext(try ModelContainer(for: Schema([Trip.self, Preference.self]), configurations: trips, settings))
        #expect(try again.fetchCount(FetchDescriptor<Stop>()) == 1)
        #expect(try again.fetch(FetchDescriptor<Preference>()).first?.key == "units")
    }

    @Test func aModelInTwoConfigurationsIsRefused() {
        #expect {
            try ModelContainer(for: Schema([Trip.self, Preference.self]),
                               configurations: ModelConfiguration("A", schema: Schema([Trip.self]), isStoredInMemoryOnly: true),
                               ModelConfiguration("B", schema: Schema([Trip.self, Preference.self]), isStoredInMemoryOnly: true))
        } throws: { error in
            (error as? SwiftDataError) == .loadIssueModelContainer && "\(error)".contains("Trip is in the configurations 'A' and 'B'")
        }
    }

    @Test func aRelationshipAcrossConfigurationsIsRefused() {
        #expect {
            try ModelContainer(for: Schema([Trip.self, Stop.self]),
                               configurations: ModelConfiguration("Trips", schema: Schema([Trip.self]), isStoredInMemoryOnly: true),
                               ModelConfiguration("Stops", schema: Schema([Stop.self]), isStoredInMemoryOnly: true))
        } throws: { error in
            // Trip's schema reaches Stop through its relationship, so both configurations list Stop.
            (error as? SwiftDataError) == .loadIssueModelContainer && "\(error)".contains("Stop")
        }
    }

    @Test func aModelInNoConfigurationIsRefused() {
        #expect {
            try ModelContainer(for: Schema([Trip.self, Preference.self]),
                               configurations: ModelConfiguration("Trips", schema: Schema([Trip.self]), isStoredInMemoryOnly: true),
                               ModelConfiguration("Other", schema: Schema([Chore.self]), isStoredInMemoryOnly: true))
        } throws: { error in
            (error as? SwiftDataError) == .loadIssueModelContainer && "\(error)".contains("Preference is in no configuration")
        }
    }

    @Test func twoConfigurationsWithOneNameAreRefused() {
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            try ModelContainer(for: Schema([Trip.self, Preference.self]),
                               configurations: ModelConfiguration("Same", schema: Schema([Trip.self]), url: URL(fileURLWithPath: "/tmp/a-\(UUID()).store")),
                               ModelConfiguration("Same", schema: Schema([Preference.self]), url: URL(fileURLWithPath: "/tmp/b-\(UUID()).store")))
        }
    }
}
