import Foundation
import OpenSwiftData
import Testing

// SwiftData history ("Fetching and filtering time-based model changes"): "The data store organizes changes as a series
// of chronological transactions, where each transaction contains information about one or more persisted changes"; an
// app creates a history descriptor, fetches the transactions with a model context, and keeps the token of the last
// one it processed to fetch only later ones next time. HistoryChange: "Values that describe data history
// transactions" — insert, update, delete — each with the changed model's persistent identifier.
// Schema.Attribute.Option.preserveValueOnDeletion: "Preserves the property's value in the persistent history when the
// context deletes the owning model."

/// A reading-room visit whose visitor stays readable in the history after the visit is deleted.
@Model final class Visit {
    @Attribute(.preserveValueOnDeletion) var visitor: String
    var room: String

    init(visitor: String, room: String) {
        self.visitor = visitor
        self.room = room
    }
}

@Suite("Documented: history")
struct DocumentedHistoryTests {
    static func container() throws -> ModelContainer {
        try ModelContainer(for: Visit.self, Author.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    static func history(_ context: ModelContext, after token: DefaultHistoryToken? = nil) throws -> [DefaultHistoryTransaction] {
        if let token {
            return try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        }
        return try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    }

    static func identifiers(_ transaction: DefaultHistoryTransaction) -> (inserted: Set<PersistentIdentifier>, updated: Set<PersistentIdentifier>, deleted: Set<PersistentIdentifier>) {
        var inserted = Set<PersistentIdentifier>(), updated = Set<PersistentIdentifier>(), deleted = Set<PersistentIdentifier>()
        for change in transaction.changes {
            switch change {
            case .insert: inserted.insert(change.changedPersistentIdentifier)
            case .update: updated.insert(change.changedPersistentIdentifier)
            case .delete: deleted.insert(change.changedPersistentIdentifier)
            }
        }
        return (inserted, updated, deleted)
    }

    /// A save is a transaction: after one save of two inserted models, the history has one transaction whose changes
    /// are the two insertions, naming the models by their (permanent) identifiers.
    @Test func aSaveIsATransactionOfItsInsertions() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        let ana = Visit(visitor: "Ana", room: "Reading room"), rui = Visit(visitor: "Rui", room: "Archive")
        context.insert(ana)
        context.insert(rui)
        try context.save()
        let history = try Self.history(ModelContext(container))
        #expect(history.count == 1)
        let changes = try Self.identifiers(#require(history.first))
        #expect(changes.inserted == [ana.persistentModelID, rui.persistentModelID])
        #expect(changes.updated.isEmpty && changes.deleted.isEmpty)
    }

    /// One save that inserts, updates and deletes is one transaction holding all three kinds of change; the update
    /// names the attributes it changed.
    @Test func oneTransactionHoldsInsertsUpdatesAndDeletes() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        let ana = Visit(visitor: "Ana", room: "Reading room"), rui = Visit(visitor: "Rui", room: "Archive")
        context.insert(ana)
        context.insert(rui)
        try context.save()

        let bea = Visit(visitor: "Bea", room: "Map room")
        context.insert(bea)
        ana.room = "Archive"
        let ruiID = rui.persistentModelID
        context.delete(rui)
        try context.save()

        let history = try Self.history(ModelContext(container))
        #expect(history.count == 2)
        let last = try #require(history.last)
        let changes = Self.identifiers(last)
        #expect(changes.inserted == [bea.persistentModelID])
        #expect(changes.updated == [ana.persistentModelID])
        #expect(changes.deleted == [ruiID])
        let update = last.changes.compactMap { change -> DefaultHistoryUpdate<Visit>? in
            if case .update(let update) = change { return update as? DefaultHistoryUpdate<Visit> }
            return nil
        }
        #expect(update.first?.updatedAttributes == [\Visit.room])
    }

    /// Transactions come in chronological order: their identifiers and tokens increase with each save, and their
    /// timestamps do not go back.
    @Test func transactionsAreChronological() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        for name in ["Ana", "Rui", "Bea"] {
            context.insert(Visit(visitor: name, room: "Reading room"))
            try context.save()
        }
        let history = try Self.history(ModelContext(container))
        #expect(history.count == 3)
        #expect(history.map(\.transactionIdentifier) == history.map(\.transactionIdentifier).sorted() && Set(history.map(\.transactionIdentifier)).count == 3)
        #expect(zip(history, history.dropFirst()).allSatisfy { $0.token < $1.token && $0.timestamp <= $1.timestamp })
    }

    /// The article's pattern: keep the token of the last transaction processed, and next time fetch only the
    /// transactions after it.
    @Test func aTokenFiltersTheLaterTransactions() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        context.insert(Visit(visitor: "Ana", room: "Reading room"))
        try context.save()
        let processed = try #require(try Self.history(ModelContext(container)).last?.token)
        #expect(try Self.history(ModelContext(container), after: processed).isEmpty, "nothing new yet")

        let rui = Visit(visitor: "Rui", room: "Archive")
        context.insert(rui)
        try context.save()
        context.insert(Author(name: "Italo Calvino"))
        try context.save()
        let newer = try Self.history(ModelContext(container), after: processed)
        #expect(newer.count == 2)
        #expect(Self.identifiers(newer[0]).inserted == [rui.persistentModelID])

        let saved = try JSONEncoder().encode(processed)
        let restored = try JSONDecoder().decode(DefaultHistoryToken.self, from: saved)
        #expect(try Self.history(ModelContext(container), after: restored).map(\.transactionIdentifier) == newer.map(\.transactionIdentifier),
                "a token kept as data (Codable) filters the same way")
    }

    /// `.preserveValueOnDeletion`: the deletion's tombstone still has the visitor's name; the other attribute is not
    /// preserved.
    @Test func aPreservedValueSurvivesDeletionInTheHistory() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        let visit = Visit(visitor: "Ana", room: "Reading room")
        context.insert(visit)
        try context.save()
        context.delete(visit)
        try context.save()
        let deletion = try #require(try Self.history(ModelContext(container)).last?.changes.compactMap { change -> DefaultHistoryDelete<Visit>? in
            if case .delete(let delete) = change { return delete as? DefaultHistoryDelete<Visit> }
            return nil
        }.first)
        #expect(deletion.tombstone[\Visit.visitor] as? String == "Ana")
        #expect(deletion.tombstone[\Visit.room] == nil)
    }

    /// HistoryTransaction.author is the saving context's author, so an app can tell its own saves from others'.
    @Test func transactionsNameTheirAuthor() throws {
        let container = try Self.container()
        let importer = ModelContext(container), editor = ModelContext(container)
        importer.author = "importer"
        editor.author = "editor"
        importer.insert(Visit(visitor: "Ana", room: "Reading room"))
        try importer.save()
        editor.insert(Visit(visitor: "Rui", room: "Archive"))
        try editor.save()
        let reader = ModelContext(container)
        #expect(try Self.history(reader).map(\.author) == ["importer", "editor"])
        let byEditor = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "editor" }))
        #expect(byEditor.count == 1)
    }

    /// deleteHistory(_:) removes the transactions the descriptor matches; the later ones stay.
    @Test func deletingProcessedHistory() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        for name in ["Ana", "Rui", "Bea"] {
            context.insert(Visit(visitor: name, room: "Reading room"))
            try context.save()
        }
        let history = try Self.history(ModelContext(container))
        let processed = history[1].token
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= processed }))
        #expect(try Self.history(ModelContext(container)).map(\.transactionIdentifier) == [history[2].transactionIdentifier])
    }
}
