// The objc.io book's Moody app as a terminal program: it records moods in an SQLite store (in a fresh
// temporary directory, or `--store PATH`), relates them to countries and continents, saves, lists them through a
// fetched results controller that reports live updates, shows the region list (countries and continents through
// the abstract GeographicRegion), deletes one mood to show the cleanup rules, undoes that, reopens the store and
// lists what persisted. `moody shell` offers the same operations as commands. Its writes go through the Skopelos data access layer: each `writeSync` runs on a
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

if arguments.count > 1, arguments[1] == "shell" {
    MoodyShell.run(storeURL: storeURL)
    exit(0)
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
            let mood = try MoodyOperations.record(at: place, rating: Int16(index % 5), colors: &colors, in: context)
            first = first ?? mood
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
        try MoodyOperations.listMoods(in: context)
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

    try moody.read { context in try MoodyOperations.listRegions(in: context) }

    // The write context gets an undo manager: the deletion below can be undone after it was saved.
    var deletedCount: Int?
    try moody.writeSync { context in
        context.undoManager = UndoManager()
        deletedCount = try MoodyOperations.deleteMood(at: Geography.places[4], in: context)
    }
    if let deletedCount {
        print("deleted the only mood in Kenya: Kenya and Africa are deleted with it (\(deletedCount) objects to delete)")
    }
    print("the mood list now:")
    moody.read { _ in list?.show() }
    try moody.read { context in try MoodyOperations.listRegions(in: context) }

    print("undoing the deletion:")
    var restored = 0
    moody.writeSync { context in
        context.undoManager?.undo()
        context.processPendingChanges()
        restored = context.insertedObjects.count
        context.undoManager = nil
    }
    print("undid it: the mood, Kenya and Africa are back (\(restored) objects inserted again)")
    print("the mood list now:")
    moody.read { _ in list?.show() }

    print("reopening the store:")
    let reopened = MoodyStore(sqliteStack: "Moody", bundle: .module, storeURL: storeURL)
    try reopened.read { context in
        let moods = try context.count(for: NSFetchRequest<Mood>(entityName: "Mood"))
        let countries = try context.count(for: NSFetchRequest<Country>(entityName: "Country"))
        let continents = try context.count(for: NSFetchRequest<Continent>(entityName: "Continent"))
        print("  \(moods) moods, \(countries) countries, \(continents) continents persisted")
        try MoodyOperations.listMoods(in: context)
        try MoodyOperations.listRegions(in: context)
    }
} catch {
    fail(error.localizedDescription)
}
