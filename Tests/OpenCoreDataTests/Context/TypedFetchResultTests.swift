import Foundation
import OpenCoreData
import Testing

/// `fetch(_:)` with a managed object class hands back the fetched array as `[T]` without copying it element by
/// element: the array behaves as any Swift array of `T` — read, copied, mutated, sorted, grown — also when the
/// results are of several classes of one hierarchy, and for the other result types.
@Suite struct TypedFetchResultTests {
    private static func stack() throws -> MoodyStack {
        let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: URL(fileURLWithPath: try SQLiteTestFiles.newDatabasePath()))
        try stack.context.performAndWait {
            let europe = Continent(context: stack.context)
            europe.numericISO3166Code = 150
            for (code, rating) in [(250, 3), (276, 1), (380, 2)] {
                let country = Country(context: stack.context)
                country.numericISO3166Code = Int16(code)
                country.continent = europe
                let mood = Mood(context: stack.context)
                mood.rating = Int16(rating)
                mood.country = country
            }
            try stack.context.save()
            stack.context.reset()
        }
        return stack
    }

    @Test func theFetchedArrayIsAnOrdinaryArrayOfTheClass() throws {
        let stack = try Self.stack()
        try stack.context.performAndWait {
            let request = NSFetchRequest<Mood>(entityName: "Mood")
            request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
            let moods = try stack.context.fetch(request)
            #expect(moods.map(\.rating) == [1, 2, 3])
            var copy = moods
            copy.append(Mood(context: stack.context))
            copy.removeFirst()
            copy.sort { $0.rating > $1.rating }
            copy.reserveCapacity(100)
            copy.insert(moods[0], at: 1)
            #expect(copy.map(\.rating) == [3, 1, 2, 0])
            #expect(moods.map(\.rating) == [1, 2, 3], "the fetched array is unchanged by its copy's mutations")
            #expect(Set(moods).count == 3)
            #expect(moods.allSatisfy { type(of: $0) == Mood.self })
        }
    }

    @Test func resultsOfSeveralClassesOfOneHierarchy() throws {
        let stack = try Self.stack()
        try stack.context.performAndWait {
            var regions = try stack.context.fetch(NSFetchRequest<GeographicRegion>(entityName: "GeographicRegion"))
            #expect(regions.count == 4)
            #expect(regions.filter { $0 is Country }.count == 3)
            #expect(regions.filter { $0 is Continent }.count == 1)
            regions.removeAll { $0 is Continent }
            regions.append(Country(context: stack.context))
            #expect(regions.count == 4)
            // The three saved countries and the one just inserted (unsaved changes count).
            let objects = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Country"))
            #expect(objects.count == 4)
            #expect(objects.allSatisfy { $0 is Country })
        }
    }

    @Test func otherResultTypesAndProtocolTypedRequests() throws {
        let stack = try Self.stack()
        try stack.context.performAndWait {
            let results = try stack.context.fetch(NSFetchRequest<NSFetchRequestResult>(entityName: "Mood"))
            #expect(results.count == 3)
            #expect(results.allSatisfy { $0 is Mood })
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Mood")
            ids.resultType = .managedObjectIDResultType
            #expect(try stack.context.fetch(ids).count == 3)
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Mood")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["rating"]
            #expect(try stack.context.fetch(dictionaries).count == 3)
        }
    }
}
