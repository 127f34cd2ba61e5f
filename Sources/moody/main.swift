// The objc.io book's Moody app as a terminal program: it records moods in an SQLite store (in a fresh
// temporary directory, or `--store PATH`), relates them to countries and continents, saves, lists them through a
// fetched results controller that reports live updates, deletes one mood to show the cleanup rules, reopens the
// store and lists what persisted.
import OpenCoreData

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("moody: \(message)\n".utf8))
    exit(1)
}

guard let modelURL = Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld") else { fail("the Moody.xcdatamodeld resource is missing") }
let model: NSManagedObjectModel
do {
    model = try NSManagedObjectModel(validatingContentsOf: modelURL)
} catch {
    fail(error.localizedDescription)
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

/// A context on a new coordinator for the store.
func openStore() throws -> NSManagedObjectContext {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: nil)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
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
    let context = try openStore()
    try context.performAndWait {
        var colors = ColorGenerator(seed: 42)
        for (index, place) in Geography.places.enumerated() {
            let mood = Mood(context: context)
            mood.rating = Int16(index % 5)
            mood.colors = [colors.next(), colors.next(), colors.next()]
            mood.latitude = place.latitude
            mood.longitude = place.longitude
            let country = try Country.findOrCreate(code: place.country, in: context)
            country.continent = try Continent.findOrCreate(code: place.continent, in: context)
            country.addToMoods(mood)
            print("recorded a mood (rating \(mood.rating)) in \(place.name), \(Geography.continentName(place.continent))")
        }
        try context.save()
        print("saved \(Geography.places.count) moods; the store assigned permanent IDs such as \(context.registeredObjects.first { $0 is Mood }?.objectID.uriRepresentation().absoluteString ?? "")")
        print("moods by country:")
        try listMoods(in: context)

        print("the mood list (a fetched results controller, sections by country):")
        let list = try MoodList(context: context)
        list.show()
        print("recording another mood in France, and re-rating the first mood in Japan:")
        let france = try Country.findOrCreate(code: 250, in: context)
        let extra = Mood(context: context)
        extra.rating = 4
        extra.colors = [colors.next(), colors.next(), colors.next()]
        france.addToMoods(extra)
        if let japanese = try Country.findOrCreate(code: 392, in: context).moods.first {
            japanese.rating = 1
        }
        context.processPendingChanges()   // the end of an event: the list reports its changes
        try context.save()

        let kenya = NSFetchRequest<Mood>(entityName: "Mood")
        kenya.predicate = NSPredicate(format: "country.numericISO3166Code == %d", 404)
        if let mood = try context.fetch(kenya).first {
            context.delete(mood)
            context.processPendingChanges()
            print("deleted the only mood in Kenya: Kenya and Africa are deleted with it (\(context.deletedObjects.count) objects to delete)")
            try context.save()
        }
        list.show()
    }
    print("reopening the store:")
    let reopened = try openStore()
    try reopened.performAndWait {
        let moods = try reopened.count(for: NSFetchRequest<Mood>(entityName: "Mood"))
        let countries = try reopened.count(for: NSFetchRequest<Country>(entityName: "Country"))
        let continents = try reopened.count(for: NSFetchRequest<Continent>(entityName: "Continent"))
        print("  \(moods) moods, \(countries) countries, \(continents) continents persisted")
        try listMoods(in: reopened)
    }
} catch {
    fail(error.localizedDescription)
}
