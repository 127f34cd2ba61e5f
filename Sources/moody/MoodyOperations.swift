import OpenCoreData
import Skopelos

/// What the tour and the shell both do, each printing what it did.
enum MoodyOperations {
    /// Records a mood at `place` (its country and continent found or created), with three colors from the generator.
    static func record(at place: Geography.Place, rating: Int16, colors: inout ColorGenerator, in context: NSManagedObjectContext) throws -> Mood {
        let mood = Mood(context: context)
        mood.rating = rating
        mood.colors = [colors.next(), colors.next(), colors.next()]
        mood.latitude = place.latitude
        mood.longitude = place.longitude
        let country = try Country.findOrCreate(code: place.country, in: context)
        country.continent = try Continent.findOrCreate(code: place.continent, in: context)
        country.addToMoods(mood)
        print("recorded a mood (rating \(mood.rating)) in \(place.name), \(Geography.continentName(place.continent))")
        return mood
    }

    /// Prints every country with its moods.
    static func listMoods(in context: NSManagedObjectContext) throws {
        let request = NSFetchRequest<Country>(entityName: "Country")
        request.sortDescriptors = [NSSortDescriptor(key: "numericISO3166Code", ascending: true)]
        for country in try context.fetch(request) {
            let continent = country.continent.map { Geography.continentName($0.numericISO3166Code) } ?? "no continent"
            let moods = country.moods.sorted { $0.date < $1.date }
            print("  \(Geography.countryName(country.numericISO3166Code)) (\(continent)): \(moods.count) mood(s) — "
                + moods.map { "rating \($0.rating) \($0.colors?.map(\.hex).joined(separator: " ") ?? "")" }.joined(separator: "; "))
        }
    }

    /// Prints the region list: one fetch of the abstract entity `GeographicRegion` returns countries and
    /// continents together; each with its mood count.
    static func listRegions(in context: NSManagedObjectContext) throws {
        let request = NSFetchRequest<GeographicRegion>(entityName: "GeographicRegion")
        request.sortDescriptors = [NSSortDescriptor(key: "numericISO3166Code", ascending: true)]
        let regions = try context.fetch(request)
        let countries = regions.compactMap { $0 as? Country }, continents = regions.compactMap { $0 as? Continent }
        print("regions (one fetch of the abstract entity GeographicRegion: \(countries.count) countries, \(continents.count) continents):")
        for region in regions {
            switch region {
            case let country as Country:
                print("  country \(Geography.countryName(country.numericISO3166Code)): \(country.moods.count) mood(s)")
            case let continent as Continent:
                let moods = continent.countries.reduce(0) { $0 + $1.moods.count }
                print("  continent \(Geography.continentName(continent.numericISO3166Code)): \(moods) mood(s) in \(continent.countries.count) countr\(continent.countries.count == 1 ? "y" : "ies")")
            default:
                break
            }
        }
    }

    /// Deletes the oldest mood of the country at `place`; the model's rules delete a country left without moods
    /// and a continent left without countries. Returns how many objects are to be deleted, nil if there was no mood.
    static func deleteMood(at place: Geography.Place, in context: NSManagedObjectContext) throws -> Int? {
        let request = NSFetchRequest<Mood>(entityName: "Mood")
        request.predicate = NSPredicate(format: "country.numericISO3166Code == %d", Int(place.country))
        request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: true)]
        guard let mood = try context.fetch(request).first else { return nil }
        context.delete(mood)
        context.processPendingChanges()
        return context.deletedObjects.count
    }

    /// The place named `name` (case-insensitively).
    static func place(named name: String) -> Geography.Place? {
        Geography.places.first { $0.name.lowercased() == name.lowercased() }
    }
}
