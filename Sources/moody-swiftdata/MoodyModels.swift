import Foundation
import OpenSwiftData

// The objc.io Moody model as SwiftData models: a mood (its colours, rating and date) taken in a country, countries
// grouped by continent. Countries and continents are unique by ISO code: inserting one that exists updates it.

@Model final class Mood {
    var date: Date
    var rating: Int
    var colors: [String]
    @Relationship(inverse: \Country.moods) var country: Country?

    init(date: Date, rating: Int, colors: [String]) {
        self.date = date
        self.rating = rating
        self.colors = colors
    }
}

@Model final class Country {
    @Attribute(.unique) var isoCode: Int
    var name: String
    var moods: [Mood] = []
    @Relationship(inverse: \Continent.countries) var continent: Continent?

    init(isoCode: Int, name: String) {
        self.isoCode = isoCode
        self.name = name
    }
}

@Model final class Continent {
    @Attribute(.unique) var isoCode: Int
    var name: String
    @Relationship(deleteRule: .cascade) var countries: [Country] = []

    init(isoCode: Int, name: String) {
        self.isoCode = isoCode
        self.name = name
    }
}

/// Records moods from a background actor into countries the store has (found by ISO code).
@ModelActor actor MoodRecorder {
    func record(_ moods: [(rating: Int, colors: [String], countryCode: Int)], author: String) throws -> [PersistentIdentifier] {
        modelContext.author = author
        let recorded = try moods.map { mood in
            let record = Mood(date: Date(timeIntervalSince1970: 1_700_000_000), rating: mood.rating, colors: mood.colors)
            modelContext.insert(record)
            let code = mood.countryCode
            record.country = try modelContext.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.isoCode == code })).first
            return record
        }
        try modelContext.save()
        return recorded.map(\.persistentModelID)
    }
}
