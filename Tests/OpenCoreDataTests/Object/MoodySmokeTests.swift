import OpenCoreData
import Testing

@Suite struct MoodySmokeTests {
    @Test func insertRelateSaveFetch() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            let country = Country(context: context)
            country.numericISO3166Code = 250
            let mood = Mood(context: context)
            mood.rating = 4
            mood.colors = [MoodColor(red: 1, green: 2, blue: 3)]
            mood.country = country
            #expect(country.moods == [mood])
            #expect(mood.value(forKey: "rating") as? Int == 4)
            try context.save()
            #expect(!mood.objectID.isTemporaryID)
        }
        let other = stack.newContext()
        try other.performAndWait {
            let request = NSFetchRequest<Mood>(entityName: "Mood")
            let moods = try other.fetch(request)
            #expect(moods.count == 1)
            let mood = try #require(moods.first)
            #expect(mood.rating == 4)
            #expect(mood.colors == [MoodColor(red: 1, green: 2, blue: 3)])
            #expect(mood.country?.numericISO3166Code == 250)
            #expect(mood.country?.moods.count == 1)
            let byCountry = NSFetchRequest<Mood>(entityName: "Mood")
            byCountry.predicate = NSPredicate(format: "country == %@", mood.country!)
            #expect(try other.fetch(byCountry).count == 1)
            let keyPath = NSFetchRequest<Mood>(entityName: "Mood")
            keyPath.predicate = NSPredicate(format: "country.numericISO3166Code == 250")
            #expect(try other.fetch(keyPath).count == 1)
        }
    }
}

@Suite struct MutableProxySmokeTests {
    @Test func mutableSetValueAddsAndRemovesWithInverses() throws {
        let stack = try MoodyStack()
        let context = stack.context
        context.performAndWait {
            let country = Country(context: context)
            let mood = Mood(context: context)
            let set = country.mutableSetValue(forKey: "moods")
            set.add(mood)
            #expect(mood.country === country)
            #expect(set.count == 1)
            set.remove(mood)
            #expect(mood.country == nil)
            #expect(country.moods.isEmpty)
        }
    }
}

@Suite struct SQLiteSmokeTests {
    @Test func sqliteInsertRelateSaveReopenFetch() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Moody.sqlite")
        do {
            let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
            let context = stack.context
            try context.performAndWait {
                let country = Country(context: context)
                country.numericISO3166Code = 250
                for rating in 0..<3 {
                    let mood = Mood(context: context)
                    mood.rating = Int16(rating)
                    mood.colors = [MoodColor(red: UInt8(rating), green: 2, blue: 3)]
                    mood.creatorID = "it's \"quoted\"; DROP TABLE ZMOOD--"
                    mood.country = country
                }
                try context.save()
            }
        }
        let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
        let context = stack.context
        try context.performAndWait {
            let request = NSFetchRequest<Mood>(entityName: "Mood")
            request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false)]
            let moods = try context.fetch(request)
            #expect(moods.map(\.rating) == [2, 1, 0])
            #expect(moods.first?.colors == [MoodColor(red: 2, green: 2, blue: 3)])
            #expect(moods.first?.creatorID == "it's \"quoted\"; DROP TABLE ZMOOD--")
            let country = try #require(moods.first?.country)
            #expect(country.numericISO3166Code == 250)
            #expect(country.moods.count == 3)
            let byCountry = NSFetchRequest<Mood>(entityName: "Mood")
            byCountry.predicate = NSPredicate(format: "country.numericISO3166Code == 250 AND rating >= 1")
            #expect(try context.count(for: byCountry) == 2)
            let regions = NSFetchRequest<GeographicRegion>(entityName: "GeographicRegion")
            #expect(try context.fetch(regions).count == 1)
            context.delete(moods[0])
            try context.save()
            #expect(try context.count(for: NSFetchRequest<Mood>(entityName: "Mood")) == 2)
        }
    }
}
