import Foundation
import OpenSwiftData
import Testing

@Suite("History")
struct HistoryTests {
    @Test func historyListsEachSaveWithItsChangesAuthorAndTombstones() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        writer.author = "importer"
        let lisbon = Trip(name: "Lisbon"), porto = Trip(name: "Porto")
        writer.insert(lisbon)
        writer.insert(porto)
        try writer.save()
        writer.author = "editor"
        lisbon.start = Date(timeIntervalSince1970: 3)
        try writer.save()
        writer.delete(porto)
        try writer.save()

        let reader = ModelContext(container)
        let history = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 3)
        #expect(history.map(\.author) == ["importer", "editor", "editor"])
        #expect(history.map(\.token) == history.map(\.token).sorted(), "tokens follow the saves")

        let inserted = history[0].changes.compactMap { change -> PersistentIdentifier? in
            if case .insert = change { return change.changedPersistentIdentifier }
            return nil
        }
        #expect(Set(inserted) == [lisbon.persistentModelID, porto.persistentModelID])

        guard case .update(let update as DefaultHistoryUpdate<Trip>) = history[1].changes.first else {
            Issue.record("the second save is an update of a Trip: \(history[1].changes)")
            return
        }
        #expect(update.changedPersistentIdentifier == lisbon.persistentModelID)
        #expect(update.updatedAttributes == [\Trip.start])

        guard case .delete(let delete as DefaultHistoryDelete<Trip>) = history[2].changes.first else {
            Issue.record("the third save deletes a Trip: \(history[2].changes)")
            return
        }
        #expect(delete.tombstone[\Trip.name] as? String == "Porto", "name keeps its value on deletion (.preserveValueOnDeletion)")

        // After a token, by author, limited, and deleted.
        let first = history[0].token
        let later = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > first }))
        #expect(later.map(\.transactionIdentifier) == history.dropFirst().map(\.transactionIdentifier))
        var byEditor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "editor" },
                                                                   sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)])
        byEditor.fetchLimit = 1
        #expect(try reader.fetchHistory(byEditor).map(\.transactionIdentifier) == [history[2].transactionIdentifier])
        try reader.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= first }))
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier)
                == history.dropFirst().map(\.transactionIdentifier))

        let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(history[1].token))
        #expect(token == history[1].token, "tokens are Codable, to keep the last one processed")
    }
}
