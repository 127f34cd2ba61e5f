import Foundation
import OpenSwiftData
import Testing

// ModelContext.autosaveEnabled: "When true, the context calls save() after you make changes to any inserted or
// registered models. … The default value is false. SwiftData automatically sets this property to true for the model
// container's mainContext." (A context made with `autosaveEnabled = true` by hand is in KnownDifferences.swift.)

@Suite("Documented: autosave")
struct DocumentedAutosaveTests {
    /// Waits (on the main actor, letting its jobs run) until `condition` holds, at most about two seconds.
    @MainActor static func eventually(_ condition: () throws -> Bool) async rethrows -> Bool {
        for _ in 0..<200 {
            if try condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try condition()
    }

    /// "SwiftData automatically sets this property to true for the model container's mainContext."
    @MainActor @Test func theMainContextAutosavesByDefault() throws {
        let container = try LibraryFixture.inMemoryContainer()
        #expect(container.mainContext.autosaveEnabled)
    }

    /// "The default value is false": a context you make yourself does not autosave.
    @Test func aContextYouMakeDoesNotAutosaveByDefault() throws {
        let container = try LibraryFixture.inMemoryContainer()
        #expect(!ModelContext(container).autosaveEnabled)
    }

    /// With autosave off, changes stay pending until you call save(): nothing reaches the store meanwhile.
    @MainActor @Test func withoutAutosaveChangesWaitForSave() async throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        context.insert(Author(name: "Italo Calvino"))
        for _ in 0..<20 { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Author>()) == 0)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Author>()) == 1)
    }

    /// "When true, the context calls save() after you make changes to any inserted or registered models": an
    /// insertion into the main context reaches the store without a call to save().
    @MainActor @Test func theMainContextSavesAnInsertByItself() async throws {
        let container = try LibraryFixture.inMemoryContainer()
        let main = container.mainContext
        main.insert(Author(name: "Italo Calvino", country: "IT"))
        let saved = await Self.eventually { !main.hasChanges }
        #expect(saved)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Author>()).map(\.country) == ["IT"])
    }

    /// The same for changes to a registered model (one the main context fetched) and for a deletion.
    @MainActor @Test func theMainContextSavesChangesAndDeletionsByItself() async throws {
        let container = try LibraryFixture.inMemoryContainer()
        try LibraryFixture.insertSample(into: ModelContext(container))
        let main = container.mainContext
        let cave = try #require(try main.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "4" })).first)
        cave.pages = 308
        let beowulf = try #require(try main.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "6" })).first)
        main.delete(beowulf)
        #expect(await Self.eventually { !main.hasChanges })
        let stored = try ModelContext(container).fetch(FetchDescriptor<Book>())
        #expect(stored.count == 5 && stored.first { $0.isbn == "4" }?.pages == 308)
    }

    /// autosaveEnabled is settable: the main context with it turned off keeps its changes pending.
    @MainActor @Test func turningAutosaveOffOnTheMainContext() async throws {
        let container = try LibraryFixture.inMemoryContainer()
        let main = container.mainContext
        main.autosaveEnabled = false
        main.insert(Author(name: "Italo Calvino"))
        for _ in 0..<20 { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(main.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Author>()) == 0)
    }
}
