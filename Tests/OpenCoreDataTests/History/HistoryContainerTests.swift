import Foundation
import Testing

@testable import OpenCoreData

// The way most apps switch history on: options of an NSPersistentStoreDescription of an NSPersistentContainer,
// a background context that writes, and the view context that follows the history.

@Suite("Persistent history through NSPersistentContainer", .timeLimit(.minutes(1)))
struct HistoryContainerTests {
    @Test("store description options turn on history and remote changes; the view context merges a background save from history")
    func containerOptions() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Container.sqlite")
        let container = NSPersistentContainer(name: "History", managedObjectModel: HistoryModel.shared)
        let description = NSPersistentStoreDescription(url: url)
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        #expect(try RawSQL.value(url, "SELECT count(*) FROM sqlite_master WHERE name = 'ATRANSACTION'") == .integer(1))

        let coordinator = container.persistentStoreCoordinator
        let recorder = RemoteChangeRecorder(coordinator)
        let viewContext = container.viewContext
        viewContext.name = "viewContext"
        let start = coordinator.currentPersistentHistoryToken(fromStores: nil)

        let background = container.newBackgroundContext()
        background.transactionAuthor = "importer"
        try background.performAndWait {
            background.insertNote("imported", remoteID: "i-1")
            try background.save()
        }
        let token = coordinator.currentPersistentHistoryToken(fromStores: nil)
        #expect(token != start)
        #expect(recorder.first(withToken: token) != nil)

        try viewContext.performAndWait {
            let fetch = try #require(NSPersistentHistoryTransaction.fetchRequest)
            fetch.predicate = NSPredicate(format: "author != %@", "viewContext")
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: start)
            request.fetchRequest = fetch
            let result = try #require(try viewContext.execute(request) as? NSPersistentHistoryResult)
            let transactions = try #require(result.result as? [NSPersistentHistoryTransaction])
            #expect(transactions.map(\.author) == ["importer"])
            for transaction in transactions { viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
            #expect(try viewContext.noteTitles() == ["imported"])
        }
    }
}
