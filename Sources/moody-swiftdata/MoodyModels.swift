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

/// Where a mood was taken: a country and its continent.
struct Place: Sendable {
    let country: (isoCode: Int, name: String)
    let continent: (isoCode: Int, name: String)
}

/// Records moods from a background actor, finding or making their country and continent.
@ModelActor actor MoodRecorder {
    func record(_ moods: [(rating: Int, colors: [String], place: Place)], author: String) throws -> [PersistentIdentifier] {
        modelContext.author = author
        let recorded = moods.map { mood in
            let record = Mood(date: Date(timeIntervalSince1970: 1_700_000_000), rating: mood.rating, colors: mood.colors)
            modelContext.insert(record)
            record.country = country(mood.place)
            return record
        }
        try modelContext.save()
        return recorded.map(\.persistentModelID)
    }

    private func country(_ place: Place) -> Country {
        let code = place.country.isoCode
        if let found = try? modelContext.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.isoCode == code })).first { return found }
        let country = Country(isoCode: code, name: place.country.name)
        modelContext.insert(country)
        let continentCode = place.continent.isoCode
        let continent = (try? modelContext.fetch(FetchDescriptor<Continent>(predicate: #Predicate { $0.isoCode == continentCode })).first)
            ?? Continent(isoCode: continentCode, name: place.continent.name)
        country.continent = continent
        return country
    }
}
