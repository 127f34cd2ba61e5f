import Foundation
import OpenSwiftData
import Testing

// Documented behaviours OpenSwiftData first lacked (each was a known issue when these tests were written, and each
// failed then): the localized standard string sort, autosave of a context you make, a decoded identifier in a
// predicate, and a sort descriptor through a to-one relationship.

@Suite("Documented: once-known differences")
struct DocumentedKnownDifferences {
    /// Foundation's SortDescriptor for a `String` key path is `init(_:comparator:order:)` with
    /// `comparator: String.StandardComparator = .localizedStandard` (SortDescriptor reference), and a FetchDescriptor
    /// sorts by its sort descriptors: `SortDescriptor(\.title)` orders titles as Finder does — numbers by value,
    /// letters without regard to case — so "Volume 2" < "volume 3" < "Volume 10".
    @Test func aStringSortDescriptorUsesTheLocalizedStandardComparator() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        for (isbn, title) in [("a", "Volume 10"), ("b", "volume 3"), ("c", "Volume 2")] {
            context.insert(Book(isbn: isbn, title: title, pages: 1))
        }
        try context.save()
        let titles = try ModelContext(container).fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(titles == ["Volume 2", "volume 3", "Volume 10"])
        let lexical = try ModelContext(container).fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title, comparator: .lexical)])).map(\.title)
        #expect(lexical == ["Volume 10", "Volume 2", "volume 3"], ".lexical compares code points")
    }

    /// ModelContext.autosaveEnabled: "When true, the context calls save() after you make changes to any inserted or
    /// registered models." A context you make and turn autosave on for saves an insertion by itself.
    @MainActor @Test func aContextYouMakeAutosavesWhenEnabled() async throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        context.autosaveEnabled = true
        context.insert(Author(name: "Italo Calvino"))
        let saved = await DocumentedAutosaveTests.eventually { !context.hasChanges }
        let stored = try ModelContext(container).fetchCount(FetchDescriptor<Author>())
        #expect(saved && stored == 1)
    }

    /// PersistentIdentifier is Codable, and a `#Predicate` means what its Swift code means (Predicate: "A logical
    /// condition used to test a set of input values"): an identifier decoded from data equals the model's
    /// persistentModelID, so `$0.persistentModelID == id` matches that model.
    @Test func aPredicateMatchesADecodedIdentifier() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let books = try LibraryFixture.insertSample(into: ModelContext(container))
        let original = try #require(books["Invisible Cities"]).persistentModelID
        let id = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(original))
        #expect(id == original)
        let context = ModelContext(container)
        let model = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "5" })).first)
        let predicate = #Predicate<Book> { $0.persistentModelID == id }
        #expect(try predicate.evaluate(model), "the predicate's own meaning")
        let matches = try context.fetch(FetchDescriptor<Book>(predicate: predicate)).map(\.isbn)
        #expect(matches == ["5"])
    }

    /// Foundation's SortDescriptor takes any key path of the model, also one through a to-one relationship
    /// (`init(_:comparator:order:)` with a `KeyPath<Compared, String?>`), and OpenSwiftData's own FetchDescriptor
    /// documents such paths (`\Stop.trip?.name` → `trip.name`): the books are ordered by their author's name, the
    /// second descriptor ordering each author's books.
    @Test func aSortDescriptorThroughAToOneRelationship() throws {
        let container = try LibraryFixture.inMemoryContainer()
        try LibraryFixture.insertSample(into: ModelContext(container))
        let descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.author != nil },
                                               sortBy: [SortDescriptor(\.author?.name, order: .reverse), SortDescriptor(\.pages)])
        let context = ModelContext(container)
        let titles = try context.fetch(descriptor).map(\.title)
        #expect(titles == ["A Wizard of Earthsea", "The Dispossessed", "The Cave", "Blindness", "Invisible Cities"])
    }
}
