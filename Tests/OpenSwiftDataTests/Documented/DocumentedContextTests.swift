import Foundation
import OpenSwiftData
import Testing

// ModelContext's life cycle of changes — insert, delete, save, rollback, transaction, the pending-change arrays,
// identifiers, and the save notifications — as the ModelContext reference pages describe them.

@Suite("Documented: ModelContext")
struct DocumentedContextTests {
    static func bookCount(_ container: ModelContainer) throws -> Int {
        try ModelContext(container).fetchCount(FetchDescriptor<Book>())
    }

    // MARK: insert

    /// insert(_:): "A model is given a temporary persistent identifier until the first time a context saves it, after
    /// which that context assigns a permanent identifier."
    @Test func insertGivesATemporaryIdentifierUntilSaved() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let book = Book(isbn: "1", title: "Kindred", pages: 264)
        context.insert(book)
        #expect(book.persistentModelID.isTemporary)
        #expect(book.modelContext == context)
        try context.save()
        #expect(!book.persistentModelID.isTemporary)
        let id = book.persistentModelID
        #expect((ModelContext(container).model(for: id) as? Book)?.title == "Kindred", "the permanent identifier names the row")
    }

    /// insert(_:): "Registers the specified model with the context so it can include the model in the next save
    /// operation" — nothing reaches the store before that save.
    @Test func anInsertIsStoredByTheNextSave() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        context.insert(Book(isbn: "1", title: "Kindred", pages: 264))
        #expect(context.hasChanges)
        #expect(try Self.bookCount(container) == 0)
        try context.save()
        #expect(!context.hasChanges)
        #expect(try Self.bookCount(container) == 1)
    }

    /// ModelContext overview: when the schema relates models, "create the graph of related models and insert only
    /// the graph's root model into the context"; the context inserts the related models — "even if the graph contains
    /// both new and existing models".
    @Test func insertingTheRootInsertsTheGraph() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let existing = Genre(name: "Fantasy")
        context.insert(existing)
        try context.save()

        let author = Author(name: "Octavia E. Butler")
        let book = Book(isbn: "1", title: "Kindred", pages: 264, author: author)
        book.loans = [Loan(borrower: "Ana", due: LibraryFixture.year(2030))]
        book.genres = [existing, Genre(name: "Science fiction")]
        context.insert(book)
        #expect(author.modelContext == context && book.loans.allSatisfy { $0.modelContext == context })
        try context.save()

        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Author>()) == 1)
        #expect(try reader.fetchCount(FetchDescriptor<Loan>()) == 1)
        #expect(Set(try reader.fetch(FetchDescriptor<Genre>()).map(\.name)) == ["Fantasy", "Science fiction"])
        let stored = try #require(try reader.fetch(FetchDescriptor<Book>()).first)
        #expect(stored.author?.name == "Octavia E. Butler" && stored.loans.map(\.borrower) == ["Ana"] && stored.genres.count == 2)
    }

    // MARK: delete

    /// delete(_:): "When the context next commits its changes, SwiftData removes the model from the persistent
    /// storage." Until then the store still has it, and deletedModelsArray — "registered models that the context will
    /// remove from the persistent storage during the next save operation" — lists it.
    @Test func aDeletionIsStoredByTheNextSave() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let books = try LibraryFixture.insertSample(into: context)
        let beowulf = try #require(books["Beowulf"])
        context.delete(beowulf)
        #expect(context.deletedModelsArray.count == 1 && context.deletedModelsArray.first as? Book === beowulf)
        #expect(try Self.bookCount(container) == 6, "not removed before the save")
        try context.save()
        #expect(try Self.bookCount(container) == 5)
        #expect(context.deletedModelsArray.isEmpty)
    }

    /// delete(_:): "If the model is new and in an unsaved state, the context simply discards it."
    @Test func deletingAnUnsavedModelDiscardsIt() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let draft = Book(isbn: "1", title: "Draft", pages: 1)
        context.insert(draft)
        context.delete(draft)
        try context.save()
        #expect(try Self.bookCount(container) == 0)
        #expect(context.insertedModelsArray.isEmpty)
    }

    /// delete(model:where:includeSubclasses:): "Removes each model satisfying the given predicate from the persistent
    /// storage during the next save operation."
    @Test func deleteModelWhereRemovesTheMatches() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        try LibraryFixture.insertSample(into: context)
        try context.delete(model: Book.self, where: #Predicate { $0.pages < 200 })
        #expect(try Self.bookCount(container) == 6, "not before the save")
        try context.save()
        #expect(Set(try ModelContext(container).fetch(FetchDescriptor<Book>()).map(\.isbn)) == ["1", "3", "4"])
    }

    /// delete(model:where:includeSubclasses:): "If you don't provide a predicate, the context will remove all models
    /// of the specified type" — of that type only.
    @Test func deleteModelWithoutAPredicateRemovesEveryModelOfTheType() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        try LibraryFixture.insertSample(into: context)
        try context.delete(model: Loan.self)
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Loan>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Book>()) == 6)
    }

    // MARK: Pending changes

    /// insertedModelsArray ("inserted models that the context is yet to persist"), changedModelsArray and hasChanges
    /// describe the unsaved work; a save empties them.
    @Test func thePendingChangeArrays() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let books = try LibraryFixture.insertSample(into: context)
        #expect(!context.hasChanges && context.insertedModelsArray.isEmpty && context.changedModelsArray.isEmpty)
        let kindred = Book(isbn: "7", title: "Kindred", pages: 264)
        context.insert(kindred)
        let cave = try #require(books["The Cave"])
        cave.pages = 308
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 1 && context.insertedModelsArray.first as? Book === kindred)
        #expect(context.changedModelsArray.contains { $0 as? Book === cave })
        #expect(cave.hasChanges)
        try context.save()
        #expect(!context.hasChanges && context.insertedModelsArray.isEmpty && context.changedModelsArray.isEmpty)
        #expect(!cave.hasChanges)
    }

    // MARK: rollback

    /// insert(_:): "If you call rollback() after inserting a model but before the next save operation, the context
    /// discards that model."
    @Test func rollbackDiscardsAnInsert() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        context.insert(Book(isbn: "1", title: "Kindred", pages: 264))
        context.rollback()
        #expect(!context.hasChanges && context.insertedModelsArray.isEmpty)
        #expect(try context.fetchCount(FetchDescriptor<Book>()) == 0)
        try context.save()
        #expect(try Self.bookCount(container) == 0)
    }

    /// rollback(): "Discards pending inserts and deletes, restores changed models to their most recent committed
    /// state, and empties the undo stack."
    @Test func rollbackRestoresTheCommittedState() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        context.undoManager = UndoManager()
        let books = try LibraryFixture.insertSample(into: context)
        let cave = try #require(books["The Cave"]), beowulf = try #require(books["Beowulf"])
        cave.title = "A Caverna"
        cave.subtitle = "Romance"
        context.delete(beowulf)
        context.insert(Book(isbn: "7", title: "Kindred", pages: 264))
        context.processPendingChanges()
        #expect(context.undoManager?.canUndo == true)

        context.rollback()
        #expect(cave.title == "The Cave" && cave.subtitle == nil)
        #expect(context.deletedModelsArray.isEmpty)
        #expect(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "6" })).first === beowulf, "no longer deleted")
        #expect(try context.fetchCount(FetchDescriptor<Book>()) == 6)
        #expect(!context.hasChanges)
        #expect(context.undoManager?.canUndo == false, "the undo stack is empty")
        try context.save()
        #expect(Set(try ModelContext(container).fetch(FetchDescriptor<Book>()).map(\.title)).contains("The Cave"))
    }

    // MARK: transaction

    /// transaction(block:): "Runs the provided closure, and once it finishes, writes any pending inserts, changes,
    /// and deletes to the persistent storage."
    @Test func aTransactionSavesWhenTheBlockFinishes() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let books = try LibraryFixture.insertSample(into: context)
        try context.transaction {
            context.insert(Book(isbn: "7", title: "Kindred", pages: 264))
            books["The Cave"]?.pages = 308
            if let beowulf = books["Beowulf"] { context.delete(beowulf) }
        }
        #expect(!context.hasChanges)
        let reader = ModelContext(container)
        let stored = try reader.fetch(FetchDescriptor<Book>())
        #expect(Set(stored.map(\.isbn)) == ["1", "2", "3", "4", "5", "7"])
        #expect(stored.first { $0.isbn == "4" }?.pages == 308)
    }

    /// transaction(block:): the save happens "once it finishes"; a block that throws does not finish, so nothing it
    /// did reaches the store, and its error comes out of `transaction`.
    @Test func aThrowingTransactionSavesNothing() throws {
        struct Abandoned: Error {}
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let books = try LibraryFixture.insertSample(into: context)
        #expect(throws: Abandoned.self) {
            try context.transaction {
                context.insert(Book(isbn: "7", title: "Kindred", pages: 264))
                books["The Cave"]?.pages = 308
                throw Abandoned()
            }
        }
        let stored = try ModelContext(container).fetch(FetchDescriptor<Book>())
        #expect(stored.count == 6 && !stored.contains { $0.isbn == "7" })
        #expect(stored.first { $0.isbn == "4" }?.pages == 307)
    }

    // MARK: Identifiers

    /// registeredModel(for:): "A typed instance of the identified model, if known to the context; otherwise, nil."
    @Test func registeredModelIsNilUntilTheContextKnowsTheModel() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let books = try LibraryFixture.insertSample(into: ModelContext(container))
        let id = try #require(books["Blindness"]).persistentModelID
        let context = ModelContext(container)
        let unknown: Book? = context.registeredModel(for: id)
        #expect(unknown == nil)
        let fetched = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "3" }))
        let known: Book? = context.registeredModel(for: id)
        #expect(known != nil && known === fetched.first)
        let wrongType: Author? = context.registeredModel(for: id)
        #expect(wrongType == nil, "typed: an identifier of a Book is no Author")
    }

    /// model(for:): "Returns the persistent model for the specified identifier" — the instance the context already
    /// has for it, if known.
    @Test func modelForAnIdentifierIsTheContextsInstance() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let books = try LibraryFixture.insertSample(into: context)
        let blindness = try #require(books["Blindness"])
        #expect(context.model(for: blindness.persistentModelID) as? Book === blindness)
        let elsewhere = ModelContext(container).model(for: blindness.persistentModelID) as? Book
        #expect(elsewhere != nil && elsewhere !== blindness && elsewhere?.title == "Blindness")
    }

    // MARK: Notifications

    /// willSave: "A notification that posts when the context is about to process pending inserts, changes, and
    /// deletes"; didSave: "posts when the context finishes" — its userInfo "contains the persistent identifiers of any
    /// inserted, updated, or deleted models", under ModelContext.NotificationKey's keys.
    @Test func saveNotificationsListTheIdentifiers() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let books = try LibraryFixture.insertSample(into: context)
        let cave = try #require(books["The Cave"]), beowulf = try #require(books["Beowulf"])
        let beowulfID = beowulf.persistentModelID
        let kindred = Book(isbn: "7", title: "Kindred", pages: 264)
        context.insert(kindred)
        cave.pages = 308
        context.delete(beowulf)

        let received = ReceivedNotifications()
        let center = NotificationCenter.default
        let will = center.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { note in
            received.add(note.name, userInfo: note.userInfo)
        }
        let did = center.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            received.add(note.name, userInfo: note.userInfo)
        }
        defer {
            center.removeObserver(will)
            center.removeObserver(did)
        }
        try context.save()

        let notes = received.all
        #expect(notes.map(\.name) == [ModelContext.willSave, ModelContext.didSave])
        #expect(notes.first?.userInfo == nil, "willSave: \"Notifications with this name don't contain a userInfo dictionary.\"")
        let info = try #require(notes.last?.userInfo)
        func ids(_ key: ModelContext.NotificationKey) -> Set<PersistentIdentifier> {
            Set((info[key.rawValue] as? [PersistentIdentifier]) ?? [])
        }
        #expect(ids(.insertedIdentifiers) == [kindred.persistentModelID])
        #expect(ids(.updatedIdentifiers).contains(cave.persistentModelID))
        #expect(ids(.deletedIdentifiers) == [beowulfID])
    }
}

/// Notifications an observer received (observers may be called on another thread).
final class ReceivedNotifications: @unchecked Sendable {
    // @unchecked Sendable: `entries` is only touched under `lock`.
    struct Entry {
        let name: Notification.Name
        let userInfo: [AnyHashable: Any]?
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    func add(_ name: Notification.Name, userInfo: [AnyHashable: Any]?) {
        lock.lock()
        entries.append(Entry(name: name, userInfo: userInfo))
        lock.unlock()
    }

    var all: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}
