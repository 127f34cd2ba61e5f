import Foundation
import OpenSwiftData
import Testing

// Undo (ModelContext.undoManager, processPendingChanges()), read-only configurations (ModelConfiguration.allowsSave),
// a container's configurations, and identifiers kept across launches (PersistentIdentifier is Codable).

@Suite("Documented: undo, configurations, identifiers")
struct DocumentedUndoAndConfigurationTests {
    /// undoManager: "Assign an instance of UndoManager to this property to enable undo support for the context. …
    /// The default value is nil." processPendingChanges(): "Tells the undo manager to record any changes made to the
    /// context's registered models." Undo reverts the recorded change and redo reapplies it ("Reverting data changes
    /// using the undo manager": "Provide undo capability to revert the last operation / redo capability to reapply
    /// the last reverted operation").
    @Test func undoAndRedoAChange() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        #expect(context.undoManager == nil)
        let books = try LibraryFixture.insertSample(into: context)
        let undoManager = UndoManager()
        context.undoManager = undoManager
        let cave = try #require(books["The Cave"])
        cave.title = "A Caverna"
        context.processPendingChanges()
        #expect(undoManager.canUndo)
        undoManager.undo()
        #expect(cave.title == "The Cave")
        #expect(undoManager.canRedo)
        undoManager.redo()
        #expect(cave.title == "A Caverna")
    }

    /// Undoing an insertion removes the model from the context's pending insertions.
    @Test func undoAnInsertion() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let undoManager = UndoManager()
        context.undoManager = undoManager
        context.insert(Author(name: "Italo Calvino"))
        context.processPendingChanges()
        #expect(context.insertedModelsArray.count == 1)
        undoManager.undo()
        #expect(context.insertedModelsArray.isEmpty)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Author>()) == 0)
    }

    /// allowsSave: "A Boolean value that determines whether the associated persistent storage is writable." A store
    /// opened with `allowsSave: false` is read: its models can be fetched, and nothing a context does reaches it.
    @Test func aConfigurationThatDoesNotAllowSavingKeepsTheStoreUnchanged() throws {
        let directory = LibraryFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("library.store")
        try LibraryFixture.insertSample(into: ModelContext(try ModelContainer(for: Schema(LibraryFixture.models), configurations: ModelConfiguration(url: url))))

        let readOnly = try ModelContainer(for: Schema(LibraryFixture.models), configurations: ModelConfiguration(url: url, allowsSave: false))
        let context = ModelContext(readOnly)
        #expect(try context.fetchCount(FetchDescriptor<Book>()) == 6)
        context.insert(Book(isbn: "7", title: "Kindred", pages: 264))
        try? context.save()
        let reopened = try ModelContainer(for: Schema(LibraryFixture.models), configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<Book>()) == 6)
    }

    /// ModelContainer.configurations: "The default value is the set of configurations you specified when calling one
    /// of the container's initializers."
    @Test func aContainerKeepsItsConfigurations() throws {
        let configuration = ModelConfiguration("scratch", isStoredInMemoryOnly: true)
        let container = try ModelContainer(for: Schema(LibraryFixture.models), configurations: configuration)
        #expect(container.configurations == [configuration])
        #expect(container.configurations.first?.isStoredInMemoryOnly == true && container.configurations.first?.name == "scratch")
    }

    /// PersistentIdentifier conforms to Codable (and Sendable): an identifier written out by one launch, read back by
    /// the next, names the same model.
    @Test func anIdentifierKeptAsDataFindsItsModelAfterARelaunch() throws {
        let directory = LibraryFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ModelConfiguration(url: directory.appendingPathComponent("library.store"))
        let saved: Data
        do {
            let books = try LibraryFixture.insertSample(into: ModelContext(try ModelContainer(for: Schema(LibraryFixture.models), configurations: configuration)))
            saved = try JSONEncoder().encode(try #require(books["Invisible Cities"]).persistentModelID)
        }
        let id = try JSONDecoder().decode(PersistentIdentifier.self, from: saved)
        let context = ModelContext(try ModelContainer(for: Schema(LibraryFixture.models), configurations: configuration))
        #expect((context.model(for: id) as? Book)?.title == "Invisible Cities")
        // (A #Predicate comparing with a decoded identifier: KnownDifferences.swift.)
    }
}
