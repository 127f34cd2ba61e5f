import OpenCoreData
import Testing

// NSFetchRequest through a context: what Apple documents for each of its settings.

@Suite("NSFetchRequest")
struct FetchRequestTests {
    /// Saves five moods (ratings 1…5, dates 1…5 days) in France, and Germany and Europe; returns mood IDs by rating.
    private func seed(_ stack: MoodyStack) throws -> [Int: NSManagedObjectID] {
        let context = stack.context
        return try context.performAndWait {
            let europe = Continent(context: context)
            europe.numericISO3166Code = 150
            let france = Country(context: context), germany = Country(context: context)
            france.numericISO3166Code = 250
            germany.numericISO3166Code = 276
            france.continent = europe
            germany.continent = europe
            var ids: [Int: NSManagedObjectID] = [:]
            var moods: [Mood] = []
            for rating in 1...5 {
                let mood = Mood(context: context)
                mood.rating = Int16(rating)
                mood.date = Date(timeIntervalSinceReferenceDate: Double(rating) * 86_400)
                mood.country = france
                moods.append(mood)
            }
            try context.save()
            for mood in moods { ids[Int(mood.rating)] = mood.objectID }
            return ids
        }
    }

    private func moods(_ context: NSManagedObjectContext, _ configure: (NSFetchRequest<Mood>) -> Void = { _ in }) throws -> [Mood] {
        let request = NSFetchRequest<Mood>(entityName: "Mood")
        configure(request)
        return try context.fetch(request)
    }

    private func ratings(_ objects: [Mood]) -> [Int] { objects.map { Int($0.rating) } }

    @Test func predicateSortLimitAndOffset() throws {
        let stack = try MoodyStack()
        _ = try seed(stack)
        let context = stack.newContext()
        try context.performAndWait { () throws -> Void in
            let byRating = [NSSortDescriptor(key: "rating", ascending: true)]
            #expect(ratings(try moods(context) { $0.sortDescriptors = byRating }) == [1, 2, 3, 4, 5])
            #expect(ratings(try moods(context) { $0.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)] }) == [5, 4, 3, 2, 1])
            #expect(ratings(try moods(context) {
                $0.predicate = NSPredicate(format: "rating > 1 AND rating < 5")
                $0.sortDescriptors = byRating
            }) == [2, 3, 4])
            #expect(ratings(try moods(context) {
                $0.sortDescriptors = byRating
                $0.fetchLimit = 2
            }) == [1, 2])
            #expect(ratings(try moods(context) {
                $0.sortDescriptors = byRating
                $0.fetchOffset = 3
            }) == [4, 5])
            #expect(ratings(try moods(context) {
                $0.sortDescriptors = byRating
                $0.fetchOffset = 1
                $0.fetchLimit = 2
            }) == [2, 3])
            #expect(ratings(try moods(context) {
                $0.predicate = NSPredicate(format: "country.continent.numericISO3166Code == 150")
                $0.sortDescriptors = byRating
            }) == [1, 2, 3, 4, 5])
            #expect(try moods(context) { $0.predicate = NSPredicate(format: "country.numericISO3166Code == 276") }.isEmpty)
        }
    }

    @Test func abstractEntityFetchIncludesSubentities() throws {
        let stack = try MoodyStack()
        _ = try seed(stack)
        let context = stack.newContext()
        try context.performAndWait {
            let regions = NSFetchRequest<GeographicRegion>(entityName: "GeographicRegion")
            regions.sortDescriptors = [NSSortDescriptor(key: "numericISO3166Code", ascending: true)]
            let all = try context.fetch(regions)
            #expect(all.map(\.numericISO3166Code) == [150, 250, 276])
            #expect(all[0] is Continent && all[1] is Country && all[2] is Country)

            regions.includesSubentities = false
            #expect(try context.fetch(regions).isEmpty, "no object has the abstract entity itself")

            let countries = NSFetchRequest<GeographicRegion>(entityName: "Country")
            countries.predicate = NSPredicate(format: "numericISO3166Code < 200")
            #expect(try context.fetch(countries).isEmpty)
        }
    }

    @Test func pendingChangesAreIncludedByDefault() throws {
        let stack = try MoodyStack()
        let ids = try seed(stack)
        let context = stack.newContext()
        try context.performAndWait {
            let byRating = [NSSortDescriptor(key: "rating", ascending: true)]
            let inserted = Mood(context: context)
            inserted.rating = 3
            let deleted = try context.existingObject(with: ids[2]!)
            context.delete(deleted)
            let updated = try context.existingObject(with: ids[5]!) as! Mood
            updated.rating = 0

            // includesPendingChanges = true (the default): the context's unsaved state counts.
            let withPending = try moods(context) { $0.sortDescriptors = byRating }
            #expect(ratings(withPending) == [0, 1, 3, 3, 4])
            #expect(withPending.contains(inserted) && !withPending.contains(deleted as! Mood))
            #expect(try moods(context) { $0.predicate = NSPredicate(format: "rating == 5") }.isEmpty,
                    "an updated object is matched against its in-memory values")
            #expect(try moods(context) { $0.predicate = NSPredicate(format: "rating == 0") } == [updated])
            #expect(ratings(try moods(context) {
                $0.sortDescriptors = byRating
                $0.fetchLimit = 2
            }) == [0, 1], "limits apply after the merge")
            #expect(ratings(try moods(context) {
                $0.sortDescriptors = byRating
                $0.fetchOffset = 3
            }) == [3, 4])
            #expect(try context.count(for: NSFetchRequest<Mood>(entityName: "Mood")) == 5)

            // includesPendingChanges = false: only what matches in the store.
            let storeOnly = try moods(context) {
                $0.includesPendingChanges = false
                $0.sortDescriptors = [NSSortDescriptor(key: "date", ascending: true)]
            }
            #expect(storeOnly.map(\.objectID) == (1...5).map { ids[$0]! })
            #expect(!storeOnly.contains(inserted))
            #expect(try moods(context) {
                $0.includesPendingChanges = false
                $0.predicate = NSPredicate(format: "rating == 5")
            } == [updated], "matched on the store's values")
        }
    }

    @Test func relationshipPredicateMatchesUnsavedDestinations() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait { () throws -> Void in
            let spain = Country(context: context)
            spain.numericISO3166Code = 724
            let mood = Mood(context: context)
            mood.country = spain
            _ = Mood(context: context)
            #expect(try moods(context) { $0.predicate = NSPredicate(format: "country == %@", spain) } == [mood])
            #expect(try moods(context) { $0.predicate = NSPredicate(format: "country == nil") }.count == 1)
            #expect(try moods(context) { $0.predicate = NSPredicate(format: "country.numericISO3166Code == 724") } == [mood])
        }
    }

    @Test func sortAndMatchAcrossRelationships() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            for (code, rating) in [(250, 1), (276, 5), (724, 3)] {
                let country = Country(context: context)
                country.numericISO3166Code = Int16(code)
                let mood = Mood(context: context)
                mood.rating = Int16(rating)
                mood.country = country
            }
            try context.save()
        }
        let fresh = stack.newContext()
        try fresh.performAndWait { () throws -> Void in
            #expect(ratings(try moods(fresh) {
                $0.sortDescriptors = [NSSortDescriptor(key: "country.numericISO3166Code", ascending: false)]
            }) == [3, 5, 1])
            let countries = NSFetchRequest<Country>(entityName: "Country")
            countries.predicate = NSPredicate(format: "ANY moods.rating >= 3")
            countries.sortDescriptors = [NSSortDescriptor(key: "numericISO3166Code", ascending: true)]
            #expect(try fresh.fetch(countries).map(\.numericISO3166Code) == [276, 724])
            countries.predicate = NSPredicate(format: "moods.@count == 1 AND NONE moods.rating > 4")
            #expect(try fresh.fetch(countries).map(\.numericISO3166Code) == [250, 724])
        }
    }

    @Test func objectsComeBackAsFaultsUnlessAskedOtherwise() throws {
        let stack = try MoodyStack()
        _ = try seed(stack)
        let faulted = stack.newContext()
        try faulted.performAndWait {
            let results = try moods(faulted)
            #expect(results.count == 5)
            #expect(results.allSatisfy { $0.isFault }, "returnsObjectsAsFaults defaults to true")
            #expect(results.allSatisfy { $0.faultingState != 0 })
            _ = results[0].rating
            #expect(!results[0].isFault)
        }
        let realized = stack.newContext()
        try realized.performAndWait {
            let results = try moods(realized) { $0.returnsObjectsAsFaults = false }
            #expect(results.allSatisfy { !$0.isFault && $0.faultingState == 0 })
        }
    }

    @Test func objectIDAndCountResultTypes() throws {
        let stack = try MoodyStack()
        let ids = try seed(stack)
        let context = stack.newContext()
        try context.performAndWait { () throws -> Void in
            let idRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Mood")
            idRequest.resultType = .managedObjectIDResultType
            idRequest.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
            idRequest.predicate = NSPredicate(format: "rating >= 4")
            #expect(try context.fetch(idRequest) == [ids[4]!, ids[5]!])

            let untypedIDs = NSFetchRequest<NSFetchRequestResult>(entityName: "Mood")
            untypedIDs.resultType = .managedObjectIDResultType
            #expect((try context.fetch(untypedIDs) as? [NSManagedObjectID])?.count == 5)

            let countRequest = NSFetchRequest<NSNumber>(entityName: "Mood")
            countRequest.resultType = .countResultType
            countRequest.predicate = NSPredicate(format: "rating <= 2")
            #expect(try context.fetch(countRequest).map(\.intValue) == [2])

            let counted = NSFetchRequest<Mood>(entityName: "Mood")
            counted.predicate = NSPredicate(format: "rating <= 2")
            #expect(try context.count(for: counted) == 2)
            #expect(try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Country")) == 2)
            #expect(try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "GeographicRegion")) == 3)
        }
    }

    @Test func dictionaryResultsHoldTheRequestedProperties() throws {
        let stack = try MoodyStack()
        _ = try seed(stack)
        let context = stack.newContext()
        try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Mood")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["rating"]
            request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false)]
            request.fetchLimit = 2
            let rows = try context.fetch(request)
            #expect(rows.map { ($0["rating"] as? NSNumber)?.intValue } == [5, 4])
            #expect(rows.allSatisfy { $0.count == 1 })
        }
    }
}
