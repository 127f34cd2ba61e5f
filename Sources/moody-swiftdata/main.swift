import Foundation
import OpenSwiftData

// The objc.io Moody tour through OpenSwiftData (SwiftData's API on Linux): the main context stores the countries and
// continents (a second insert of one upserts it), background actors record moods at the same time, the main context
// lists them by country and continent, filters, deletes and undoes, reads the store's history, and the store is
// reopened from its file. `swift run moody-swiftdata [store path]`.

let continents = [(150, "Europe", [(250, "France"), (276, "Germany")]), (142, "Asia", [(392, "Japan")]), (419, "South America", [(76, "Brazil")])]

@MainActor func tour(storeURL: URL) async throws {
    let container = try ModelContainer(for: Mood.self, configurations: ModelConfiguration(url: storeURL))
    print("store: \(storeURL.path)")

    let context = container.mainContext
    context.autosaveEnabled = false
    context.author = "setup"
    for (code, name, countries) in continents {
        let continent = Continent(isoCode: code, name: name)
        context.insert(continent)
        continent.countries = countries.map { Country(isoCode: $0.0, name: $0.1) }
    }
    try context.save()
    context.insert(Country(isoCode: 250, name: "France (République française)"))   // unique ISO code: updates France
    try context.save()
    context.author = nil
    print("countries: \(try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.isoCode)])).map(\.name).joined(separator: ", "))")

    // Two actors record moods at the same time.
    let first = MoodRecorder(modelContainer: container), second = MoodRecorder(modelContainer: container)
    async let a = first.record([(4, ["#da6b10", "#ff05d0"], 250), (1, ["#f33f61", "#0eac1e"], 276)], author: "phone")
    async let b = second.record([(0, ["#eeed77", "#4ca5b7"], 250), (1, ["#4bb292", "#3a2d07"], 392), (3, ["#587b59", "#2a1154"], 76)],
                                author: "watch")
    let recorded = try await a + b
    print("recorded \(recorded.count) moods from two actors")

    context.undoManager = UndoManager()
    printMoods(in: context)
    let good = try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.rating >= 3 }, sortBy: [SortDescriptor(\.rating, order: .reverse)]))
    print("moods rated 3 or more: \(good.map { "\($0.rating) in \($0.country?.name ?? "?")" }.joined(separator: ", "))")
    let inEurope = try context.fetchCount(FetchDescriptor<Mood>(predicate: #Predicate { $0.country?.continent?.name == "Europe" }))
    print("moods in Europe: \(inEurope)")

    // Delete Japan's mood, then undo it.
    let japanese = try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.country?.name == "Japan" }))
    for mood in japanese { context.delete(mood) }
    context.processPendingChanges()
    print("deleted \(japanese.count) mood(s) in Japan: \(try context.fetchCount(FetchDescriptor<Mood>())) moods left")
    context.undoManager?.undo()
    print("undid it: \(try context.fetchCount(FetchDescriptor<Mood>())) moods")
    try context.save()

    // The store's history: who saved what.
    for transaction in try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.transactionIdentifier)])) {
        var counts = (inserted: 0, updated: 0, deleted: 0)
        for change in transaction.changes {
            switch change {
            case .insert: counts.inserted += 1
            case .update: counts.updated += 1
            case .delete: counts.deleted += 1
            }
        }
        print("history: transaction \(transaction.transactionIdentifier) by \(transaction.author ?? "the main context"): "
              + "\(counts.inserted) inserted, \(counts.updated) updated, \(counts.deleted) deleted")
    }

    // Reopen the store from its file.
    let reopened = ModelContext(try ModelContainer(for: Mood.self, configurations: ModelConfiguration(url: storeURL)))
    print("reopened: \(try reopened.fetchCount(FetchDescriptor<Mood>())) moods, \(try reopened.fetchCount(FetchDescriptor<Country>())) countries, "
          + "\(try reopened.fetchCount(FetchDescriptor<Continent>())) continents")
    for continent in try reopened.fetch(FetchDescriptor<Continent>(sortBy: [SortDescriptor(\.name)])) {
        let moods = continent.countries.reduce(0) { $0 + $1.moods.count }
        print("  \(continent.name): \(moods) mood(s) in \(continent.countries.count) countr\(continent.countries.count == 1 ? "y" : "ies")")
    }
}

@MainActor func printMoods(in context: ModelContext) {
    let countries = (try? context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)]))) ?? []
    print("moods by country:")
    for country in countries {
        let ratings = country.moods.map(\.rating).sorted().map(String.init).joined(separator: ", ")
        print("  \(country.name) (\(country.continent?.name ?? "?")): \(country.moods.count) mood(s), ratings \(ratings)")
    }
}

let path = CommandLine.arguments.dropFirst().first
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("moody-swiftdata-\(UUID().uuidString)")
let url = path.map { URL(fileURLWithPath: $0) } ?? directory.appendingPathComponent("Moody.store")
do {
    try await tour(storeURL: url)
    if path == nil { try? FileManager.default.removeItem(at: directory) }
} catch {
    print("error: \(error)")
    exit(1)
}
