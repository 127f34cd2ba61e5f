import Foundation
import Synchronization
import Testing

@testable import OpenCoreData

/// The unsafe fast paths (`UnsafeFastPaths`: the row cache's prefetch, the shared typed set, vtable probing, the
/// property-name words) give the same results as their safe paths: the same workload — inserts through `@Managed`
/// setters, a save with a validation failure, fetches of cached rows in key order, typed to-many reads, moves between
/// relationships, a second save — runs with the switch on and off, and every result is compared. Each fast path is
/// also checked to be off when the switch is.
@Suite struct UnsafeFastPathsTests {
    /// Held while the switch is off, and by tests that check that a fast path is taken (other tests give the same
    /// results either way and need not wait).
    static let exclusive = Mutex<Void>(())

    /// Runs `body` with the switch set to `enabled`, restoring it afterwards.
    static func with<T>(fastPaths enabled: Bool, _ body: () throws -> T) rethrows -> T {
        try exclusive.withLock { _ in
            let previous = UnsafeFastPaths.isEnabled
            UnsafeFastPaths.isEnabled = enabled
            defer { UnsafeFastPaths.isEnabled = previous }
            return try body()
        }
    }

    /// Which paths the workload took: for the comparison these must differ between the runs, the results not.
    struct Paths: Equatable {
        var sharedTypedSet = false
        var directChangeTracking = false
        var nameWords = false
    }

    @Test func theSameWorkloadGivesTheSameResultsWithTheFastPathsOff() throws {
        let (fast, fastPaths) = try Self.with(fastPaths: true) { try Self.workload() }
        let (safe, safePaths) = try Self.with(fastPaths: false) { try Self.workload() }
        #expect(fastPaths == Paths(sharedTypedSet: true, directChangeTracking: true, nameWords: true), "the fast paths were taken")
        #expect(safePaths == Paths(), "no fast path was taken with the switch off")
        #expect(fast.count == safe.count)
        for (index, (a, b)) in zip(fast, safe).enumerated() where a != b {
            Issue.record("result \(index) differs: fast paths on: \(a); off: \(b)")
        }
        #expect(fast.count > 600, "the workload produced its results (\(fast.count) lines)")
    }

    /// The row-cache prefetch (which a scan of cached rows in key order calls for the row eight keys ahead) reads
    /// raw memory only with the switch on.
    @Test func thePrefetchReadsNothingWithTheSwitchOff() throws {
        let model = MoodyModel.make()
        let mood = try #require(model.entitiesByName["Mood"])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let objectID = NSManagedObjectID(entity: mood, key: .primaryKey(3), store: store)
        var table = RowTable()
        var snapshot = mood.layout.emptySnapshot()
        snapshot.version = 1
        table[objectID] = RowCache.Entry(objectID: objectID, snapshot: snapshot, fetched: .now, generation: 0)
        #expect(Self.with(fastPaths: true) { table.prefetch(store: objectID.storeIdentifier, primaryKey: 3) })
        #expect(!Self.with(fastPaths: false) { table.prefetch(store: objectID.storeIdentifier, primaryKey: 3) })
        #expect(table[objectID]?.snapshot.version == 1)
    }

    /// Inserts, validates, saves, fetches and changes a Moody graph in an SQLite store on a model made for this run
    /// (so that its entity layouts are made with the switch as it is); returns every result as text, and the paths.
    static func workload() throws -> ([String], Paths) {
        let directory = try TemporaryStoreDirectory()
        let url = directory.url.appendingPathComponent("Moody.sqlite")
        let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: url, model: MoodyModel.make())
        var results: [String] = []
        var paths = Paths()
        func mood(_ mood: Mood) -> String {
            "\(mood.creatorID ?? "-") r\(mood.rating) \(mood.latitude.map { "\($0)" } ?? "-") c\(mood.country?.numericISO3166Code ?? -1)"
        }

        // Inserts through the typed setters, and a save that fails validation (a rating above 5) and then succeeds.
        let writer = stack.context
        try writer.performAndWait {
            let europe = Continent(context: writer)
            europe.numericISO3166Code = 150
            let countries = (1...6).map { code -> Country in
                let country = Country(context: writer)
                country.numericISO3166Code = Int16(code)
                country.continent = code <= 4 ? europe : nil
                return country
            }
            var moods: [Mood] = []
            for index in 0..<300 {
                let mood = Mood(context: writer)
                mood.creatorID = "creator-\(index)"
                mood.rating = Int16(index % 6)
                mood.latitude = index % 7 == 0 ? nil : Double(index) / 8
                mood.country = countries[index % countries.count]
                moods.append(mood)
            }
            paths.directChangeTracking = moods[0].tracksChangesDirectly
            paths.nameWords = moods[0].layout.slots.comparesNameWords
            moods[7].rating = 9
            do {
                try writer.save()
                results.append("save with rating 9: saved")
            } catch let error as NSError {
                results.append("save with rating 9: \(error.domain) \(error.code) \(error.userInfo[NSValidationKeyErrorKey] ?? "-")")
            }
            moods[7].rating = 5
            try writer.save()
            results.append("saved: \(writer.registeredObjects.count) objects")
        }

        // Fetches of the cached rows in key order, and typed to-many reads.
        let reader = stack.newContext()
        try reader.performAndWait {
            for pass in 0..<2 {
                let request = NSFetchRequest<Mood>(entityName: "Mood")
                request.returnsObjectsAsFaults = pass == 0
                let moods = try reader.fetch(request)
                results += moods.map(mood).sorted().map { "pass \(pass): \($0)" }
            }
            let countries = try reader.fetch(NSFetchRequest<Country>(entityName: "Country")).sorted { $0.numericISO3166Code < $1.numericISO3166Code }
            for country in countries {
                let members = country.moods
                results.append("country \(country.numericISO3166Code): \(members.count) moods, \(members.map(mood).sorted().joined(separator: "; "))")
                results.append("country \(country.numericISO3166Code) again: \(country.moods == members), continent \(country.continent?.numericISO3166Code ?? -1)")
                if country.numericISO3166Code == 1 { paths.sharedTypedSet = Self.sharesStorage(members, with: country) }
            }
            let continent = try #require(try reader.fetch(NSFetchRequest<Continent>(entityName: "Continent")).first)
            results.append("continent: \(continent.countries.map(\.numericISO3166Code).sorted())")

            // Moves and edits, read back before and after a save.
            let first = try #require(countries.first), last = try #require(countries.last)
            for mood in first.moods.sorted(by: { ($0.creatorID ?? "") < ($1.creatorID ?? "") }).prefix(20) {
                mood.country = last
                mood.rating = (mood.rating + 1) % 6
            }
            last.continent = continent
            results.append("changed: \(reader.updatedObjects.count) updated, first \(first.moods.count), last \(last.moods.count), continent \(continent.countries.count)")
            results.append("changed values: " + reader.updatedObjects.compactMap { $0 as? Mood }.map { "\($0.creatorID ?? "-") \($0.changedValues().keys.sorted())" }.sorted().joined(separator: "; "))
            try reader.save()
        }

        // What the store holds now, read in a third context.
        let checker = stack.newContext()
        try checker.performAndWait {
            let request = NSFetchRequest<Mood>(entityName: "Mood")
            request.predicate = NSPredicate(format: "rating >= 3 AND country.continent != nil")
            request.sortDescriptors = [NSSortDescriptor(key: "creatorID", ascending: true)]
            results += try checker.fetch(request).map { "stored: \(mood($0))" }
            results.append("count: \(try checker.count(for: NSFetchRequest<Mood>(entityName: "Mood")))")
        }
        return (results, paths)
    }

    /// Whether a typed set read from `country.moods` shares the relationship's own table.
    static func sharesStorage(_ members: Set<Mood>, with country: Country) -> Bool {
        guard case .toMany(let slot, _)? = country.layout.slots["moods"], case .members(let relationship) = country.toManyValues[slot] else { return false }
        return unsafeBitCast(members, to: UnsafeRawPointer.self) == unsafeBitCast(relationship.memberSet, to: UnsafeRawPointer.self)
    }
}
