import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

// A store written through OpenSwiftData is Core Data's: an app using Core Data (here OpenCoreData, with the model a
// developer would draw in Xcode for the same classes) opens it without migration, reads every value and
// relationship, writes to it, and the SwiftData side reads that back; the `coredata` tool describes it.

@Suite("CoreDataRoundTrip")
struct CoreDataRoundTripTests {
    /// Trip (name, start?, stops: cascade) and Stop (city, nights, trip?) as a Core Data model drawn by hand.
    static func handDrawnModel() -> OpenCoreData.NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            return attribute
        }
        let trip = NSEntityDescription(), stop = NSEntityDescription()
        trip.name = "Trip"
        stop.name = "Stop"
        let stops = NSRelationshipDescription(), back = NSRelationshipDescription()
        stops.name = "stops"
        stops.destinationEntity = stop
        stops.deleteRule = .cascadeDeleteRule
        stops.minCount = 0
        stops.maxCount = 0
        back.name = "trip"
        back.destinationEntity = trip
        back.maxCount = 1
        stops.inverseRelationship = back
        back.inverseRelationship = stops
        let name = attribute("name", .stringAttributeType, optional: false)
        name.preservesValueInHistoryOnDeletion = true   // Trip.name's .preserveValueOnDeletion (part of the version hash)
        trip.properties = [name, attribute("start", .dateAttributeType, optional: true), stops]
        trip.uniquenessConstraints = [["name"]]
        stop.properties = [attribute("city", .stringAttributeType, optional: false), attribute("nights", .integer64AttributeType, optional: false), back]
        let model = OpenCoreData.NSManagedObjectModel()
        model.entities = [trip, stop]
        return model
    }

    @Test func aSwiftDataStoreOpensWithCoreDataAndBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("trips.store")
        do {
            let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
            let trip = Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 86_400))
            trip.stops = [Stop(city: "Belém", nights: 2), Stop(city: "Sintra")]
            context.insert(trip)
            try context.save()
        }

        let container = OpenCoreData.NSPersistentContainer(name: "Trips", managedObjectModel: Self.handDrawnModel())
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = false   // the versions must match as they are
        // SwiftData keeps history: Core Data opens such a store read-only unless it keeps history too (as Apple's does).
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil, "the store opens with the hand-drawn model: same version hashes")
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Trip")
            let trips = try context.fetch(request)
            #expect(trips.count == 1)
            let trip = try #require(trips.first)
            #expect(trip.value(forKey: "name") as? String == "Lisbon")
            #expect(trip.value(forKey: "start") as? Date == Date(timeIntervalSince1970: 86_400))
            let stops = ((trip.value(forKey: "stops") as? NSSet)?.allObjects as? [NSManagedObject]) ?? []
            #expect(Set(stops.compactMap { $0.value(forKey: "city") as? String }) == ["Belém", "Sintra"])
            #expect(Set(stops.compactMap { ($0.value(forKey: "nights") as? NSNumber)?.intValue }) == [1, 2])
            #expect(stops.allSatisfy { $0.value(forKey: "trip") as? NSManagedObject === trip })

            let porto = NSEntityDescription.insertNewObject(forEntityName: "Trip", into: context)
            porto.setValue("Porto", forKey: "name")
            let ribeira = NSEntityDescription.insertNewObject(forEntityName: "Stop", into: context)
            ribeira.setValue("Ribeira", forKey: "city")
            ribeira.setValue(3, forKey: "nights")
            ribeira.setValue(porto, forKey: "trip")
            try context.save()
        }

        let again = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        let read = try again.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(read.map(\.name) == ["Lisbon", "Porto"])
        #expect(read[1].start == nil && read[1].stops.map(\.city) == ["Ribeira"] && read[1].stops.first?.nights == 3)

        guard let tool = CoreDataTool.executable else {
            Issue.record("the coredata executable is not built next to the tests")
            return
        }
        let info = try CoreDataTool.run(tool, ["store", "info", url.path])
        #expect(info.status == 0, "\(info.output)")
        #expect(info.output.contains("Trip") && info.output.contains("Stop"))
    }
}

/// The `coredata` executable built beside the test bundle.
enum CoreDataTool {
    static let executable: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("coredata")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    static func run(_ tool: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: output), as: UTF8.self))
    }
}
