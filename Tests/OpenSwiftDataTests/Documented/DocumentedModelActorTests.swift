import Foundation
import OpenSwiftData
import Testing

// ModelActor: "An interface for providing mutually-exclusive access to the attributes of a conforming model";
// its modelContext is "the context that serializes any code running on the model actor", and
// DefaultSerialModelExecutor "safely performs storage-related tasks using an isolated model context". Models stay in
// their actor; identifiers (Sendable) cross between actors and contexts.

@ModelActor actor Cataloguer {
    /// Inserts one book per title and saves; returns their identifiers.
    func catalogue(_ titles: [String], prefix: String) throws -> [PersistentIdentifier] {
        let books = titles.enumerated().map { Book(isbn: "\(prefix)-\($0.offset)", title: $0.element, pages: 1) }
        for book in books { modelContext.insert(book) }
        try modelContext.save()
        return books.map(\.persistentModelID)
    }

    /// Adds a page to a book (read, change, save: one job of the actor).
    func addPage(to id: PersistentIdentifier) throws {
        guard let book = self[id, as: Book.self] else { return }
        book.pages += 1
        try modelContext.save()
    }

    func pages(of id: PersistentIdentifier) -> Int? {
        self[id, as: Book.self]?.pages
    }

    func title(of id: PersistentIdentifier) -> String? {
        self[id, as: Book.self]?.title
    }

    func count() throws -> Int {
        try modelContext.fetchCount(FetchDescriptor<Book>())
    }
}

@Suite("Documented: ModelActor")
struct DocumentedModelActorTests {
    /// Many tasks calling several model actors at once: every insertion is stored once, and the identifiers the
    /// actors return are permanent and distinct.
    @Test func concurrentTasksOnSeveralActorsAddUp() async throws {
        let directory = LibraryFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: directory.appendingPathComponent("library.store")))
        let actors = (0..<3).map { _ in Cataloguer(modelContainer: container) }
        let ids = try await withThrowingTaskGroup(of: [PersistentIdentifier].self) { group in
            for (a, cataloguer) in actors.enumerated() {
                for task in 0..<8 {
                    group.addTask { try await cataloguer.catalogue((0..<25).map { "a\(a) t\(task) b\($0)" }, prefix: "\(a)-\(task)") }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(ids.count == 3 * 8 * 25)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { !$0.isTemporary })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Book>()) == 600)
        for cataloguer in actors { #expect(try await cataloguer.count() == 600, "each actor's context sees every save") }
    }

    /// Identifiers an actor returns resolve in another context and in another actor, to the same rows.
    @Test func identifiersResolveElsewhere() async throws {
        let container = try LibraryFixture.inMemoryContainer()
        let first = Cataloguer(modelContainer: container), second = Cataloguer(modelContainer: container)
        let ids = try await first.catalogue(["Kindred", "Dawn", "Fledgling"], prefix: "ob")
        let context = ModelContext(container)
        #expect(ids.map { (context.model(for: $0) as? Book)?.title } == ["Kindred", "Dawn", "Fledgling"])
        for (id, title) in zip(ids, ["Kindred", "Dawn", "Fledgling"]) {
            #expect(await second.title(of: id) == title)
        }
        let fetched = try context.fetchIdentifiers(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.pages), SortDescriptor(\.isbn)]))
        #expect(fetched == ids, "the same identifiers a fetch in another context finds")
    }

    /// Mutually-exclusive access: many tasks changing the same model through one actor each see the previous one's
    /// save — a hundred increments make a hundred pages more.
    @Test func oneActorSerializesConcurrentChanges() async throws {
        let container = try LibraryFixture.inMemoryContainer()
        let cataloguer = Cataloguer(modelContainer: container)
        let id = try #require(try await cataloguer.catalogue(["Counter"], prefix: "c").first)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { try await cataloguer.addPage(to: id) } }
            try await group.waitForAll()
        }
        #expect(await cataloguer.pages(of: id) == 101)
        #expect((ModelContext(container).model(for: id) as? Book)?.pages == 101)
    }

    /// ModelActor.modelContainer: "The container that manages the app's schema and model storage configuration" —
    /// the one the actor was made with, and its context belongs to it.
    @Test func theActorsContainerAndContext() async throws {
        let container = try LibraryFixture.inMemoryContainer()
        let cataloguer = Cataloguer(modelContainer: container)
        #expect(cataloguer.modelContainer === container)
        let ids = try await cataloguer.catalogue(["Kindred"], prefix: "k")
        #expect(try ModelContext(cataloguer.modelContainer).fetchIdentifiers(FetchDescriptor<Book>()) == ids)
    }
}
