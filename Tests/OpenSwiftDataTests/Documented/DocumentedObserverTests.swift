import Foundation
import Observation
import OpenSwiftData
import Synchronization
import Testing

// SwiftData's 2026 observation API, as its reference pages and the WWDC26 session ("What's new in SwiftData") describe it.
// ResultsObserver: "Observes and tracks changes to a collection of persistent models in a model context" — it
// "automatically monitors changes to models matching the fetch criteria and keeps a collection of fetched results up to
// date", responding to "local changes made within the same model context", "remote changes from other contexts within
// the same container" and "external changes from other processes". Setting `filterBy` or `sortBy` "immediately
// refetches on the calling actor". With `sectionBy`, "the sectionBy key path is automatically prepended as the first
// sort descriptor … ensuring results are always contiguous within each section", sections are "ordered by their first
// appearance in the sorted results", and "elements whose section value is nil are grouped into a section with an empty
// name". SectionedResults: "A RandomAccessCollection of ResultsSection instances"; ResultsSection: "A section of
// fetched results grouped by a common section key path value", identified by its title.
// HistoryObserver: "Monitors a model container's data stores for remote changes and notifies when new history
// transactions are available" through "a counter that increments each time the observer detects relevant changes",
// filtered by `observedModels` and `authors` (empty: any). Schema.Attribute.Option.codable: "Uses the property's codable
// representation to store the property."

/// A mountain expedition: listed by name or length, filtered by whether it runs, sectioned by region or leader.
@Model final class Expedition {
    var name: String
    var region: String
    var leader: String?
    var days: Int
    var isActive: Bool

    init(name: String, region: String, leader: String? = nil, days: Int, isActive: Bool = true) {
        self.name = name
        self.region = region
        self.leader = leader
        self.days = days
        self.isActive = isActive
    }
}

/// A wildlife sighting: a second model type, for the history observer's model filter.
@Model final class Sighting {
    var species: String
    var count: Int

    init(species: String, count: Int) {
        self.species = species
        self.count = count
    }
}

struct Waypoint: Codable, Equatable {
    var latitude: Double
    var longitude: Double
}

/// A value the schema does not look into: stored as its Codable encoding.
struct FieldNotes: Codable, Equatable {
    var collector: String
    var tags: [String]
    var route: [Waypoint]
}

enum Preservation: String, Codable {
    case dried, alcohol, frozen
}

/// A class that is not a model (like MKMapItem.Identifier in the session): only `.codable` can store it.
final class PlaceIdentifier: Codable, Equatable {
    let rawValue: String

    init(_ rawValue: String) { self.rawValue = rawValue }

    static func == (lhs: PlaceIdentifier, rhs: PlaceIdentifier) -> Bool { lhs.rawValue == rhs.rawValue }
}

@Model final class Specimen {
    var label: String
    @Attribute(.codable) var notes: FieldNotes
    @Attribute(.codable) var preservation: Preservation

    init(label: String, notes: FieldNotes, preservation: Preservation) {
        self.label = label
        self.notes = notes
        self.preservation = preservation
    }
}

@Model final class Landmark {
    var name: String
    @Attribute(.codable) var place: PlaceIdentifier?

    init(name: String, place: PlaceIdentifier? = nil) {
        self.name = name
        self.place = place
    }
}

@Suite("Documented: results and history observers")
struct DocumentedObserverTests {
    /// Set once from any thread (an observation's onChange), read by the test.
    final class Flag: Sendable {
        private let state = Mutex(false)
        func set() { state.withLock { $0 = true } }
        var isSet: Bool { state.withLock { $0 } }
    }

    static func container(at url: URL? = nil) throws -> ModelContainer {
        let configuration = url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true)
        return try ModelContainer(for: Expedition.self, Sighting.self, configurations: configuration)
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("observers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Six expeditions, saved. By name: Aconcagua, Annapurna Circuit, Everest Base Camp, Haute Route, Torres del Paine,
    /// Tour du Mont Blanc. Everest Base Camp and Tour du Mont Blanc do not run; Aconcagua and Everest have no leader.
    @discardableResult
    static func seed(_ context: ModelContext) throws -> [String: Expedition] {
        let expeditions = [
            Expedition(name: "Annapurna Circuit", region: "Himalaya", leader: "Mira", days: 18),
            Expedition(name: "Aconcagua", region: "Andes", leader: nil, days: 20),
            Expedition(name: "Haute Route", region: "Alps", leader: "Luc", days: 7),
            Expedition(name: "Everest Base Camp", region: "Himalaya", leader: nil, days: 14, isActive: false),
            Expedition(name: "Torres del Paine", region: "Andes", leader: "Mira", days: 9),
            Expedition(name: "Tour du Mont Blanc", region: "Alps", leader: "Ana", days: 11, isActive: false),
        ]
        for expedition in expeditions { context.insert(expedition) }
        try context.save()
        return Dictionary(uniqueKeysWithValues: expeditions.map { ($0.name, $0) })
    }

    static let allByName = ["Aconcagua", "Annapurna Circuit", "Everest Base Camp", "Haute Route", "Torres del Paine", "Tour du Mont Blanc"]
    static var isActive: Predicate<Expedition> { #Predicate<Expedition> { $0.isActive == true } }
    static var byName: [SortDescriptor<Expedition>] { [SortDescriptor(\Expedition.name)] }

    /// Waits (on the caller's actor, letting its jobs run) until `condition` holds, at most `timeout`.
    static func eventually(isolation: isolated (any Actor)? = #isolation, within timeout: Duration = .seconds(5),
                           _ condition: () throws -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try condition()
    }

    /// Whether equal keys are never split up (each key's run is the only one).
    static func isContiguous(_ keys: [String]) -> Bool {
        var seen = Set<String>()
        var previous: String?
        for key in keys where key != previous {
            if !seen.insert(key).inserted { return false }
            previous = key
        }
        return true
    }

    static func firstAppearances(_ keys: [String]) -> [String] {
        var seen = Set<String>()
        return keys.filter { seen.insert($0).inserted }
    }

    static func titles(_ sections: SectionedResults<Expedition, String>) -> [[String]] {
        sections.map { section in section.map(\.name) }
    }

    // MARK: ResultsObserver — initializing

    /// `init(filterBy:sortBy:modelContext:)`: "Throws an error if the initial fetch fails" — the fetch happens in the
    /// initializer, so the results are there when it returns, filtered and sorted as asked; the observer keeps the
    /// context it was given ("The model context from which models are fetched") and has no sectioning.
    @Test func theInitialFetchFiltersAndSorts() throws {
        let context = ModelContext(try Self.container())
        try Self.seed(context)
        let observer = try ResultsObserver<Expedition, Never>(filterBy: Self.isActive, sortBy: [SortDescriptor(\Expedition.days)], modelContext: context)
        #expect(observer.results.map(\.name) == ["Haute Route", "Torres del Paine", "Annapurna Circuit", "Aconcagua"])
        #expect(observer.modelContext === context)
        #expect(observer.filterBy != nil)
        #expect(observer.sortBy.first?.order == .forward)
        #expect(observer.sectionBy == nil)
    }

    /// `init(fetchDescriptor:modelContext:)`: "The descriptor defining the fetch criteria" — `fetchDescriptor` is "the
    /// fetch descriptor used to query the model context", and fetching it gives the observer's results. Every leading
    /// parameter has a default, so Apple's own call shapes `ResultsObserver<Trip, Never>(modelContext:)` and
    /// `ResultsObserver<Book, String>(sectionBy: \.genre, modelContext:)` are valid calls.
    @Test func aFetchDescriptorDefinesTheCriteria() throws {
        let context = ModelContext(try Self.container())
        try Self.seed(context)
        let descriptor = FetchDescriptor<Expedition>(predicate: #Predicate { $0.days >= 11 }, sortBy: [SortDescriptor(\.name, order: .reverse)])
        let observer = try ResultsObserver<Expedition, Never>(fetchDescriptor: descriptor, modelContext: context)
        #expect(observer.results.map(\.name) == ["Tour du Mont Blanc", "Everest Base Camp", "Annapurna Circuit", "Aconcagua"])
        #expect(observer.fetchDescriptor.predicate != nil && observer.filterBy != nil)
        #expect(try context.fetch(observer.fetchDescriptor).map(\.name) == observer.results.map(\.name))

        let everything = try ResultsObserver<Expedition, Never>(modelContext: context)
        #expect(Set(everything.results.map(\.name)) == Set(Self.allByName))
        let byRegion = try ResultsObserver<Expedition, String>(sectionBy: \.region, modelContext: context)
        #expect(byRegion.sections?.sectionTitles == ["Alps", "Andes", "Himalaya"])
    }

    /// The `modelContainer:` initializers: "A new ModelContext is created from the provided container" — the observer's
    /// context is a context of that container, not its main context, and each observer gets its own.
    @MainActor @Test func aContainerInitializerMakesItsOwnContext() throws {
        let container = try Self.container()
        try Self.seed(ModelContext(container))
        let observer = try ResultsObserver<Expedition, Never>(sortBy: Self.byName, modelContainer: container)
        let another = try ResultsObserver<Expedition, Never>(fetchDescriptor: FetchDescriptor(sortBy: Self.byName), modelContainer: container)
        #expect(observer.modelContext.container === container)
        #expect(observer.modelContext !== container.mainContext)
        #expect(observer.modelContext !== another.modelContext)
        #expect(observer.results.map(\.name) == Self.allByName)
        #expect(another.results.map(\.name) == Self.allByName)
    }

    // MARK: ResultsObserver — following changes

    /// "Local changes made within the same model context": a model inserted and saved joins the results at its sorted
    /// place; a model deleted and saved leaves them.
    @Test func resultsFollowInsertsAndDeletionsInTheirContext() throws {
        let context = ModelContext(try Self.container())
        let expeditions = try Self.seed(context)
        let observer = try ResultsObserver<Expedition, Never>(sortBy: Self.byName, modelContext: context)
        context.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
        try context.save()
        #expect(observer.results.map(\.name) == ["Aconcagua", "Annapurna Circuit", "Everest Base Camp", "Haute Route", "Kilimanjaro", "Torres del Paine", "Tour du Mont Blanc"])

        context.delete(try #require(expeditions["Haute Route"]))
        context.delete(try #require(expeditions["Aconcagua"]))
        try context.save()
        #expect(observer.results.map(\.name) == ["Annapurna Circuit", "Everest Base Camp", "Kilimanjaro", "Torres del Paine", "Tour du Mont Blanc"])
    }

    /// The observer "automatically monitors changes to models matching the fetch criteria": an edit that makes a model
    /// match (or stop matching) the filter moves it in (or out), and an edit to the sort key reorders the results.
    @Test func editsThatChangeMembershipOrOrderUpdateTheResults() throws {
        let context = ModelContext(try Self.container())
        let expeditions = try Self.seed(context)
        let observer = try ResultsObserver<Expedition, Never>(filterBy: Self.isActive, sortBy: [SortDescriptor(\Expedition.days)], modelContext: context)
        #expect(observer.results.map(\.name) == ["Haute Route", "Torres del Paine", "Annapurna Circuit", "Aconcagua"])

        let everest = try #require(expeditions["Everest Base Camp"]), torres = try #require(expeditions["Torres del Paine"])
        everest.isActive = true
        torres.isActive = false
        try context.save()
        #expect(observer.results.map(\.name) == ["Haute Route", "Everest Base Camp", "Annapurna Circuit", "Aconcagua"])

        let hauteRoute = try #require(expeditions["Haute Route"])
        hauteRoute.days = 30
        try context.save()
        #expect(observer.results.map(\.name) == ["Everest Base Camp", "Annapurna Circuit", "Aconcagua", "Haute Route"])
    }

    /// Unsaved changes in the observer's context count too: an insertion and an edit show in the results once the
    /// context processes its pending changes, while they are still unsaved.
    @Test func pendingChangesShowAfterProcessPendingChanges() throws {
        let context = ModelContext(try Self.container())
        let expeditions = try Self.seed(context)
        let observer = try ResultsObserver<Expedition, Never>(filterBy: Self.isActive, sortBy: Self.byName, modelContext: context)
        context.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
        let aconcagua = try #require(expeditions["Aconcagua"])
        aconcagua.isActive = false
        context.processPendingChanges()
        #expect(observer.results.map(\.name) == ["Annapurna Circuit", "Haute Route", "Kilimanjaro", "Torres del Paine"])
        #expect(context.hasChanges, "nothing was saved")
    }

    /// "Remote changes from other contexts within the same container": another context's saved insertion, edit and
    /// deletion reach the results (at the observer's context's next processPendingChanges()).
    @Test func resultsFollowAnotherContextsSave() throws {
        let container = try Self.container()
        try Self.seed(ModelContext(container))
        let observer = try ResultsObserver<Expedition, Never>(filterBy: Self.isActive, sortBy: Self.byName, modelContext: ModelContext(container))
        #expect(observer.results.map(\.name) == ["Aconcagua", "Annapurna Circuit", "Haute Route", "Torres del Paine"])

        let other = ModelContext(container)
        other.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
        let everest = try #require(try other.fetch(FetchDescriptor<Expedition>(predicate: #Predicate { $0.name == "Everest Base Camp" })).first)
        everest.isActive = true
        other.delete(try #require(try other.fetch(FetchDescriptor<Expedition>(predicate: #Predicate { $0.name == "Aconcagua" })).first))
        try other.save()

        observer.modelContext.processPendingChanges()
        #expect(observer.results.map(\.name) == ["Annapurna Circuit", "Everest Base Camp", "Haute Route", "Kilimanjaro", "Torres del Paine"])
    }

    /// An observer on the container's main context keeps itself up to date on the main actor: a background context's
    /// save shows in its results without any call on the main context.
    @MainActor @Test func aMainContextObserverFollowsABackgroundSaveByItself() async throws {
        let container = try Self.container()
        try Self.seed(ModelContext(container))
        let observer = try ResultsObserver<Expedition, Never>(sortBy: Self.byName, modelContext: container.mainContext)
        #expect(observer.results.count == 6)
        try await Task.detached { [container] in
            let background = ModelContext(container)
            background.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
            try background.save()
        }.value
        let updated = try await Self.eventually { observer.results.map(\.name).contains("Kilimanjaro") }
        #expect(updated)
        #expect(observer.results.count == 7)
    }

    /// The same for a change made in the main context itself: an insertion shows on the main actor's next turn,
    /// without a call to save() or processPendingChanges().
    @MainActor @Test func aMainContextObserverFollowsItsOwnContextByItself() async throws {
        let container = try Self.container()
        let main = container.mainContext
        try Self.seed(main)
        let observer = try ResultsObserver<Expedition, Never>(sortBy: Self.byName, modelContext: main)
        main.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
        let updated = try await Self.eventually { observer.results.map(\.name).contains("Kilimanjaro") }
        #expect(updated)
    }

    /// "External changes from other processes": a second container on the same store file stands in for another
    /// process; its save reaches the observer's results within a few seconds.
    @Test func resultsFollowAnotherContainerOnTheSameFile() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("expeditions.store")
        let container = try Self.container(at: url)
        try Self.seed(ModelContext(container))
        let observer = try ResultsObserver<Expedition, Never>(filterBy: Self.isActive, sortBy: Self.byName, modelContainer: container)
        #expect(observer.results.count == 4)

        let elsewhere = ModelContext(try Self.container(at: url))
        elsewhere.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
        let aconcagua = try #require(try elsewhere.fetch(FetchDescriptor<Expedition>(predicate: #Predicate { $0.name == "Aconcagua" })).first)
        aconcagua.isActive = false
        try elsewhere.save()

        let updated = try await Self.eventually {
            observer.modelContext.processPendingChanges()
            return observer.results.map(\.name) == ["Annapurna Circuit", "Haute Route", "Kilimanjaro", "Torres del Paine"]
        }
        #expect(updated, "results: \(observer.results.map(\.name))")
    }

    /// ResultsObserver is Observable and `results` is the observed property ("as an @Observable property, readers
    /// refresh on change"): an observation of `results` hears of a saved insertion, and of a new `filterBy`.
    @Test func observersOfResultsHearOfChanges() async throws {
        let context = ModelContext(try Self.container())
        try Self.seed(context)
        let observer = try ResultsObserver<Expedition, Never>(sortBy: Self.byName, modelContext: context)

        let inserted = Flag()
        withObservationTracking({ _ = observer.results }, onChange: { inserted.set() })
        context.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
        try context.save()
        let heard = try await Self.eventually {
            context.processPendingChanges()
            return inserted.isSet
        }
        #expect(heard)

        let filtered = Flag()
        withObservationTracking({ _ = observer.results }, onChange: { filtered.set() })
        observer.filterBy = #Predicate<Expedition> { $0.region == "Alps" }
        #expect(filtered.isSet, "the refetch happened before the setter returned")
    }

    // MARK: ResultsObserver — filterBy and sortBy

    /// `filterBy`: setting it "updates the underlying fetchDescriptor's predicate and immediately refetches on the
    /// calling actor — results are synchronously up to date before the setter returns"; `nil` removes filtering.
    @Test func settingFilterByRefetchesAtOnce() throws {
        let context = ModelContext(try Self.container())
        try Self.seed(context)
        let observer = try ResultsObserver<Expedition, Never>(sortBy: Self.byName, modelContext: context)
        #expect(observer.results.count == 6)

        observer.filterBy = #Predicate<Expedition> { $0.region == "Andes" }
        #expect(observer.results.map(\.name) == ["Aconcagua", "Torres del Paine"])
        #expect(observer.filterBy != nil && observer.fetchDescriptor.predicate != nil)
        #expect(try context.fetch(observer.fetchDescriptor).map(\.name) == ["Aconcagua", "Torres del Paine"])

        observer.filterBy = nil
        #expect(observer.results.map(\.name) == Self.allByName)
        #expect(observer.fetchDescriptor.predicate == nil)
    }

    /// `sortBy`: setting it updates `fetchDescriptor.sortBy` and immediately refetches — the results are in the new
    /// order when the setter returns.
    @Test func settingSortByReordersAtOnce() throws {
        let context = ModelContext(try Self.container())
        try Self.seed(context)
        let observer = try ResultsObserver<Expedition, Never>(filterBy: Self.isActive, sortBy: Self.byName, modelContext: context)
        #expect(observer.results.map(\.name) == ["Aconcagua", "Annapurna Circuit", "Haute Route", "Torres del Paine"])

        observer.sortBy = [SortDescriptor(\Expedition.days, order: .reverse)]
        #expect(observer.results.map(\.name) == ["Aconcagua", "Annapurna Circuit", "Torres del Paine", "Haute Route"])
        #expect(observer.sortBy.first?.order == .reverse && observer.fetchDescriptor.sortBy.first?.order == .reverse)
        #expect(try context.fetch(observer.fetchDescriptor).map(\.name) == observer.results.map(\.name))
    }

    /// With sectioning, "the section's sort descriptor is automatically re-prepended" when `sortBy` is set: sorting by
    /// length keeps each region's expeditions together (sorted by length within the region).
    @Test func settingSortByKeepsTheSectionKeyFirst() throws {
        let context = ModelContext(try Self.container())
        try Self.seed(context)
        let observer = try ResultsObserver<Expedition, String>(sortBy: Self.byName, sectionBy: \.region, modelContext: context)
        observer.sortBy = [SortDescriptor(\Expedition.days)]
        #expect(observer.results.map(\.name) == ["Haute Route", "Tour du Mont Blanc", "Torres del Paine", "Aconcagua", "Everest Base Camp", "Annapurna Circuit"])
        #expect(Self.isContiguous(observer.results.map(\.region)))
        #expect(observer.sortBy.count >= 2, "the section key's descriptor comes before the one set")
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles == ["Alps", "Andes", "Himalaya"])
        #expect(Self.titles(sections) == [["Haute Route", "Tour du Mont Blanc"], ["Torres del Paine", "Aconcagua"], ["Everest Base Camp", "Annapurna Circuit"]])
    }

    // MARK: ResultsObserver — sections

    /// `sections`: "The sectionBy key path is automatically prepended as the first sort descriptor at initialization"
    /// and the sections are "ordered by their first appearance in the sorted results"; read in order, the sections
    /// are the results.
    @Test func sectionsFollowTheSortedResults() throws {
        let context = ModelContext(try Self.container())
        try Self.seed(context)
        let observer = try ResultsObserver<Expedition, String>(sortBy: [SortDescriptor(\Expedition.days, order: .reverse)], sectionBy: \.region, modelContext: context)
        #expect(observer.sectionBy == (\Expedition.region as PartialKeyPath<Expedition>))
        #expect(observer.results.map(\.name) == ["Tour du Mont Blanc", "Haute Route", "Aconcagua", "Torres del Paine", "Annapurna Circuit", "Everest Base Camp"])
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles == Self.firstAppearances(observer.results.map(\.region)))
        #expect(sections.sectionTitles == ["Alps", "Andes", "Himalaya"])
        #expect(Self.titles(sections).flatMap { $0 } == observer.results.map(\.name))
    }

    /// The `String?` initializers: "Elements whose section value is nil are grouped into a section with an empty name."
    @Test func aNilSectionValueGoesToTheEmptyTitle() throws {
        let context = ModelContext(try Self.container())
        try Self.seed(context)
        let observer = try ResultsObserver<Expedition, String>(sortBy: Self.byName, sectionBy: \.leader, modelContext: context)
        #expect(observer.sectionBy == (\Expedition.leader as PartialKeyPath<Expedition>))
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles.count == 4)
        #expect(Set(sections.sectionTitles) == ["", "Ana", "Luc", "Mira"])
        #expect(sections[sectionTitle: ""]?.map(\.name) == ["Aconcagua", "Everest Base Camp"])
        #expect(sections[sectionTitle: "Mira"]?.map(\.name) == ["Annapurna Circuit", "Torres del Paine"])
    }

    /// SectionedResults: `sectionTitles` ("The section titles in order"), `contains(sectionTitle:)`,
    /// `index(ofSectionTitled:)` (nil for a missing title) and `subscript(sectionTitle:)` (nil for a missing title);
    /// a ResultsSection's `id` "is its title", and its elements are the ones sharing that key path value.
    @Test func sectionsAreLookedUpByTitle() throws {
        let context = ModelContext(try Self.container())
        try Self.seed(context)
        let observer = try ResultsObserver<Expedition, String>(sortBy: Self.byName, sectionBy: \.region, modelContext: context)
        let sections = try #require(observer.sections)
        #expect(sections.count == 3)
        #expect(sections.sectionTitles == ["Alps", "Andes", "Himalaya"])
        #expect(sections.contains(sectionTitle: "Andes"))
        #expect(!sections.contains(sectionTitle: "Sahara"))
        #expect(sections.index(ofSectionTitled: "Himalaya") == 2)
        #expect(sections.index(ofSectionTitled: "Sahara") == nil)
        #expect(sections[sectionTitle: "Andes"]?.map(\.name) == ["Aconcagua", "Torres del Paine"])
        #expect(sections[sectionTitle: "Sahara"] == nil)
        #expect((sections[sectionTitle: "Alps"]?.count ?? 0) == 2)

        #expect(sections.map(\.title) == sections.sectionTitles)
        for section in sections {
            #expect(section.id == section.title)
            #expect(section.allSatisfy { $0.region == section.title })
            #expect(sections[sectionTitle: section.title] == section)
        }
    }

    /// The sections are "computed from the current results": a change that brings a new section value adds its
    /// section, and removing the last model of a section removes the section.
    @Test func sectionsFollowTheResults() throws {
        let context = ModelContext(try Self.container())
        let expeditions = try Self.seed(context)
        let observer = try ResultsObserver<Expedition, String>(filterBy: Self.isActive, sortBy: Self.byName, sectionBy: \.region, modelContext: context)
        #expect(observer.sections?.sectionTitles == ["Alps", "Andes", "Himalaya"])

        context.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
        context.delete(try #require(expeditions["Haute Route"]))
        try context.save()
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles == ["Africa", "Andes", "Himalaya"])
        #expect(!sections.contains(sectionTitle: "Alps"))
        #expect(Self.titles(sections) == [["Kilimanjaro"], ["Aconcagua", "Torres del Paine"], ["Annapurna Circuit"]])
    }

    /// `element(at:)` and `indexPath(for:)`: "indexPath[0] = section index, indexPath[1] = item index within that
    /// section"; they are inverse to each other over the sectioned results, and give nil "if out of bounds" or "if not
    /// found" (a model the filter leaves out).
    @Test func indexPathsAddressTheSectionedResults() throws {
        let context = ModelContext(try Self.container())
        let expeditions = try Self.seed(context)
        let observer = try ResultsObserver<Expedition, String>(filterBy: Self.isActive, sortBy: Self.byName, sectionBy: \.region, modelContext: context)
        let sections = try #require(observer.sections)
        #expect(Self.titles(sections) == [["Haute Route"], ["Aconcagua", "Torres del Paine"], ["Annapurna Circuit"]])
        for (sectionIndex, section) in Array(sections).enumerated() {
            for (item, expedition) in Array(section).enumerated() {
                #expect(observer.element(at: IndexPath(indexes: [sectionIndex, item])) === expedition)
                #expect(observer.indexPath(for: expedition) == IndexPath(indexes: [sectionIndex, item]))
            }
        }
        #expect(observer.indexPath(for: try #require(expeditions["Torres del Paine"])) == IndexPath(indexes: [1, 1]))
        #expect(observer.element(at: IndexPath(indexes: [2, 0]))?.name == "Annapurna Circuit")

        #expect(observer.element(at: IndexPath(indexes: [3, 0])) == nil, "no fourth section")
        #expect(observer.element(at: IndexPath(indexes: [0, 1])) == nil, "the Alps section has one item")
        #expect(observer.element(at: IndexPath(indexes: [1, 2])) == nil)
        #expect(observer.indexPath(for: try #require(expeditions["Everest Base Camp"])) == nil, "filtered out")
    }

    /// Without sectioning (`SectionTitle == Never`): `sections` "returns nil if the observer was created without
    /// sectionBy", `sectionBy` is nil, and `element(at:)` / `indexPath(for:)` return nil ("if sections is nil").
    @Test func anUnsectionedObserverHasNoSections() throws {
        let context = ModelContext(try Self.container())
        try Self.seed(context)
        let observer = try ResultsObserver<Expedition, Never>(sortBy: Self.byName, modelContext: context)
        #expect(observer.sections == nil)
        #expect(observer.sectionBy == nil)
        let first = try #require(observer.results.first)
        #expect(observer.element(at: IndexPath(indexes: [0, 0])) == nil)
        #expect(observer.indexPath(for: first) == nil)
    }

    // MARK: HistoryObserver

    /// "Creates a history observer that reports changes through its observable eventCounter property": the counter
    /// starts at zero and increments after a save of a relevant transaction (from any context of the container), again
    /// for a later one; the observer keeps the container, model types and authors it was given.
    @Test func theCounterRisesForAMatchingSave() async throws {
        let container = try Self.container()
        let observer = try HistoryObserver(observedModels: [Expedition.self], modelContainer: container)
        #expect(observer.eventCounter == 0)
        #expect(observer.modelContainer === container)
        #expect(observer.observedModels.map { ObjectIdentifier($0) } == [ObjectIdentifier(Expedition.self)])
        #expect(observer.authors.isEmpty)

        let context = ModelContext(container)
        let expedition = Expedition(name: "Kilimanjaro", region: "Africa", days: 6)
        context.insert(expedition)
        try context.save()
        let counted = try await Self.eventually { observer.eventCounter >= 1 }
        #expect(counted)

        let afterInsert = observer.eventCounter
        expedition.days = 7
        try context.save()
        let countedAgain = try await Self.eventually { observer.eventCounter > afterInsert }
        #expect(countedAgain, "an update is a relevant change too")
    }

    /// `observedModels`: "Non-empty → only report changes whose transactions modify instances of these types": a save
    /// of another type leaves the counter alone (while an observer of that type counts it).
    @Test func theCounterIgnoresOtherModelTypes() async throws {
        let container = try Self.container()
        let expeditions = try HistoryObserver(observedModels: [Expedition.self], modelContainer: container)
        let sightings = try HistoryObserver(observedModels: [Sighting.self], modelContainer: container)
        let context = ModelContext(container)
        context.insert(Sighting(species: "Snow leopard", count: 1))
        try context.save()
        let controlCounted = try await Self.eventually { sightings.eventCounter >= 1 }
        #expect(controlCounted)
        try await Task.sleep(for: .milliseconds(300))
        #expect(expeditions.eventCounter == 0)

        context.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
        try context.save()
        let counted = try await Self.eventually { expeditions.eventCounter >= 1 }
        #expect(counted)
    }

    /// `authors`: "Non-empty → only transactions written by one of these authors" (the session's "only the app's own
    /// writes"); empty → any author.
    @Test func theCounterFiltersByAuthor() async throws {
        let container = try Self.container()
        let appOnly = try HistoryObserver(authors: ["App"], modelContainer: container)
        let anyone = try HistoryObserver(modelContainer: container)
        #expect(appOnly.authors == ["App"])
        let importer = ModelContext(container)
        importer.author = "Importer"
        importer.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
        try importer.save()
        let controlCounted = try await Self.eventually { anyone.eventCounter >= 1 }
        #expect(controlCounted)
        try await Task.sleep(for: .milliseconds(300))
        #expect(appOnly.eventCounter == 0)

        let app = ModelContext(container)
        app.author = "App"
        app.insert(Sighting(species: "Condor", count: 2))
        try app.save()
        let counted = try await Self.eventually { appOnly.eventCounter >= 1 }
        #expect(counted)
    }

    /// `historyTokens` nil: "the observer captures the current position for each store immediately, so that only
    /// transactions from this point on are reported" — earlier transactions do not count, later ones do.
    @Test func withoutTokensEarlierTransactionsDoNotCount() async throws {
        let container = try Self.container()
        let context = ModelContext(container)
        try Self.seed(context)
        context.insert(Sighting(species: "Ibex", count: 4))
        try context.save()
        let observer = try HistoryObserver(modelContainer: container)
        try await Task.sleep(for: .milliseconds(500))
        #expect(observer.eventCounter == 0)

        context.insert(Sighting(species: "Chamois", count: 3))
        try context.save()
        let counted = try await Self.eventually { observer.eventCounter >= 1 }
        #expect(counted)
    }

    /// `historyTokens`: "initial tokens keyed by store identifier" — the observer "tracks its position in each data
    /// store's transaction history", so starting from the last processed transaction's token it counts only later ones.
    @Test func givenTokensCountOnlyLaterTransactions() async throws {
        let container = try Self.container()
        let context = ModelContext(container)
        try Self.seed(context)
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        let tokens: [String: any HistoryToken] = [last.storeIdentifier: last]
        let observer = try HistoryObserver(historyTokens: tokens, modelContainer: container)
        try await Task.sleep(for: .milliseconds(500))
        #expect(observer.eventCounter == 0)

        context.insert(Expedition(name: "Kilimanjaro", region: "Africa", days: 6))
        try context.save()
        let counted = try await Self.eventually { observer.eventCounter >= 1 }
        #expect(counted)
    }

    /// It "monitors a model container's data stores for remote changes": a save through a second container on the same
    /// store file (another process, in effect) increments the counter.
    @Test func theCounterSeesAnotherContainerOnTheSameFile() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("history.store")
        let container = try Self.container(at: url)
        try Self.seed(ModelContext(container))
        let observer = try HistoryObserver(observedModels: [Sighting.self], modelContainer: container)

        let elsewhere = ModelContext(try Self.container(at: url))
        elsewhere.insert(Sighting(species: "Marmot", count: 5))
        try elsewhere.save()
        let counted = try await Self.eventually { observer.eventCounter >= 1 }
        #expect(counted)
    }

    /// "HistoryObserver has a single observable property – eventCounter": an observation of it hears of the increment.
    @Test func observersOfTheCounterHearOfIncrements() async throws {
        let container = try Self.container()
        let observer = try HistoryObserver(modelContainer: container)
        let changed = Flag()
        withObservationTracking({ _ = observer.eventCounter }, onChange: { changed.set() })
        let context = ModelContext(container)
        context.insert(Sighting(species: "Golden eagle", count: 1))
        try context.save()
        let heard = try await Self.eventually { changed.isSet }
        #expect(heard)
        #expect(observer.eventCounter >= 1)
    }

    // MARK: Schema.Attribute.Option.codable

    /// `.codable`: "Uses the property's codable representation to store the property" — the schema marks the attribute
    /// (`isCodable`), and a struct holding arrays of nested values and a raw-value enum come back equal through a save
    /// and a fresh container on the same file.
    @Test func aCodableAttributeRoundTripsThroughTheStore() throws {
        let entity = try #require(Schema([Specimen.self]).entitiesByName["Specimen"])
        #expect(entity.attributesByName["notes"]?.isCodable == true)
        #expect(entity.attributesByName["notes"]?.options.contains(.codable) == true)
        #expect(entity.attributesByName["preservation"]?.isCodable == true)
        #expect(entity.attributesByName["label"]?.isCodable == false)

        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("specimens.store")
        let notes = FieldNotes(collector: "Mira", tags: ["alpine", "scree"], route: [Waypoint(latitude: 45.83, longitude: 6.86), Waypoint(latitude: 45.92, longitude: 6.87)])
        do {
            let context = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(url: url)))
            context.insert(Specimen(label: "Edelweiss", notes: notes, preservation: .dried))
            context.insert(Specimen(label: "Gentian", notes: FieldNotes(collector: "Luc", tags: [], route: []), preservation: .alcohol))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(url: url)))
        let specimens = try context.fetch(FetchDescriptor<Specimen>(sortBy: [SortDescriptor(\.label)]))
        #expect(specimens.map(\.label) == ["Edelweiss", "Gentian"])
        #expect(specimens.first?.notes == notes)
        #expect(specimens.first?.preservation == .dried)
        #expect(specimens.last?.notes == FieldNotes(collector: "Luc", tags: [], route: []))
        #expect(specimens.last?.preservation == .alcohol)
    }

    /// The session's case: a class that is not a model (MKMapItem.Identifier) can't be inspected for a schema, and
    /// `.codable` stores it through its encoding instead — an optional one round-trips, and so does nil.
    @Test func aCodableClassValueRoundTrips() throws {
        #expect(Schema([Landmark.self]).entitiesByName["Landmark"]?.attributesByName["place"]?.isCodable == true)
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("landmarks.store")
        do {
            let context = ModelContext(try ModelContainer(for: Landmark.self, configurations: ModelConfiguration(url: url)))
            context.insert(Landmark(name: "Matterhorn", place: PlaceIdentifier("I5F1A2B3C")))
            context.insert(Landmark(name: "Unnamed col"))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Landmark.self, configurations: ModelConfiguration(url: url)))
        let landmarks = try context.fetch(FetchDescriptor<Landmark>(sortBy: [SortDescriptor(\.name)]))
        #expect(landmarks.map(\.name) == ["Matterhorn", "Unnamed col"])
        #expect(landmarks.first?.place == PlaceIdentifier("I5F1A2B3C"))
        #expect(landmarks.last?.place == nil)
    }
}
