// The objc.io book's Moody app as a terminal program: it records moods in an SQLite store (in a fresh
// temporary directory, or `--store PATH`), relates them to countries and continents, saves, lists them through a
// fetched results controller that reports live updates, deletes one mood to show the cleanup rules, reopens the
// store and lists what persisted. Its writes go through the Skopelos data access layer: each `writeSync` runs on a
// write context and is in the store when it returns; reads (and the list) use the main context.
import OpenCoreData
import Skopelos

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("moody: \(message)\n".utf8))
    exit(1)
}

/// The data access layer: any error it meets ends the program with the error's message.
final class MoodyStore: Skopelos, @unchecked Sendable {  // adds no state
    override func handleError(_ error: NSError) {
        fail(error.localizedDescription)
    }
}

ColorsTransformer.register()
NSManagedObjectModel.registerManagedObjectClasses([Mood.self, GeographicRegion.self, Country.self, Continent.self])

let arguments = CommandLine.arguments
let storeURL: URL
if let index = arguments.firstIndex(of: "--store"), index + 1 < arguments.count {
    storeURL = URL(fileURLWithPath: arguments[index + 1])
} else {
    storeURL = FileManager.default.temporaryDirectory.appendingPathComponent("moody-\(UUID().uuidString)/Moody.sqlite")
}

if arguments.contains("--wait-for-signal") {
    waitForSignal(storeURL: storeURL)
}

/// Prints every country with its moods.
func listMoods(in context: NSManagedObjectContext) throws {
    let request = NSFetchRequest<Country>(entityName: "Country")
    request.sortDescriptors = [NSSortDescriptor(key: "numericISO3166Code", ascending: true)]
    for country in try context.fetch(request) {
        let continent = country.continent.map { Geography.continentName($0.numericISO3166Code) } ?? "no continent"
        let moods = country.moods.sorted { $0.date < $1.date }
        print("  \(Geography.countryName(country.numericISO3166Code)) (\(continent)): \(moods.count) mood(s) — "
            + moods.map { "rating \($0.rating) \($0.colors?.map(\.hex).joined(separator: " ") ?? "")" }.joined(separator: "; "))
    }
}

do {
    print("Moody: storing moods in \(storeURL.path)")
    // The model is found by name among this program's resources (Bundle.module on Linux).
    let moody = MoodyStore(sqliteStack: "Moody", bundle: .module, storeURL: storeURL)
    var colors = ColorGenerator(seed: 42)
    var permanentID = ""
    try moody.writeSync { context in
        var first: Mood?
        for (index, place) in Geography.places.enumerated() {
            let mood = Mood(context: context)
            mood.rating = Int16(index % 5)
            mood.colors = [colors.next(), colors.next(), colors.next()]
            mood.latitude = place.latitude
            mood.longitude = place.longitude
            let country = try Country.findOrCreate(code: place.country, in: context)
            country.continent = try Continent.findOrCreate(code: place.continent, in: context)
            country.addToMoods(mood)
            first = first ?? mood
            print("recorded a mood (rating \(mood.rating)) in \(place.name), \(Geography.continentName(place.continent))")
        }
        if let first {
            try context.obtainPermanentIDs(for: [first])
            permanentID = first.objectID.uriRepresentation().absoluteString
        }
    }
    print("saved \(Geography.places.count) moods; the store assigned permanent IDs such as \(permanentID)")
    var list: MoodList?
    try moody.read { context in
        print("moods by country:")
        try listMoods(in: context)
        print("the mood list (a fetched results controller, sections by country):")
        list = try MoodList(context: context)
        list?.show()
    }

    print("recording another mood in France, and re-rating the first mood in Japan:")
    // The list watches the main context: it reports the changes when the write is saved into it.
    try moody.writeSync { context in
        let france = try Country.findOrCreate(code: 250, in: context)
        let extra = Mood(context: context)
        extra.rating = 4
        extra.colors = [colors.next(), colors.next(), colors.next()]
        france.addToMoods(extra)
        if let japanese = try Country.findOrCreate(code: 392, in: context).moods.first {
            japanese.rating = 1
        }
    }

    var deletedCount: Int?
    try moody.writeSync { context in
        let kenya = NSFetchRequest<Mood>(entityName: "Mood")
        kenya.predicate = NSPredicate(format: "country.numericISO3166Code == %d", 404)
        if let mood = try context.fetch(kenya).first {
            context.delete(mood)
            context.processPendingChanges()
            deletedCount = context.deletedObjects.count
        }
    }
    if let deletedCount {
        print("deleted the only mood in Kenya: Kenya and Africa are deleted with it (\(deletedCount) objects to delete)")
    }
    moody.read { _ in list?.show() }

    print("reopening the store:")
    let reopened = MoodyStore(sqliteStack: "Moody", bundle: .module, storeURL: storeURL)
    try reopened.read { context in
        let moods = try context.count(for: NSFetchRequest<Mood>(entityName: "Mood"))
        let countries = try context.count(for: NSFetchRequest<Country>(entityName: "Country"))
        let continents = try context.count(for: NSFetchRequest<Continent>(entityName: "Continent"))
        print("  \(moods) moods, \(countries) countries, \(continents) continents persisted")
        try listMoods(in: context)
    }
} catch {
    fail(error.localizedDescription)
}
