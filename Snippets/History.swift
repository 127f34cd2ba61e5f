// Persistent history: record transactions, follow remote changes, merge other writers' transactions; query
// generations; concurrent reads.
import OpenCoreData

// snippet.tracking
/// History on, and a notification for every write to the store.
func addTrackedStore(to coordinator: NSPersistentStoreCoordinator, at storeURL: URL) throws {
    let options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true,
                                       NSPersistentStoreRemoteChangeNotificationPostOptionKey: true]
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: options)
    // With a container: description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
}

/// Merges into the view context what others wrote since `lastToken`; call it on each `.NSPersistentStoreRemoteChange`
/// (object: the coordinator; posted on a private queue, for every write, this process's and others').
final class HistoryMerger {
    private var lastToken: NSPersistentHistoryToken?
    private let viewContext: NSManagedObjectContext

    init(viewContext: NSManagedObjectContext, coordinator: NSPersistentStoreCoordinator) {
        self.viewContext = viewContext
        lastToken = coordinator.currentPersistentHistoryToken(fromStores: nil)
    }

    func mergeNewTransactions() throws {
        try viewContext.performAndWait {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
            let result = try viewContext.execute(request) as? NSPersistentHistoryResult
            for transaction in result?.result as? [NSPersistentHistoryTransaction] ?? [] where transaction.author != "app" {
                viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                lastToken = transaction.token
            }
        }
    }

    /// History older than a week is no longer needed; a token older than what is kept fails with
    /// `NSPersistentHistoryTokenExpiredError`.
    func prune(in context: NSManagedObjectContext) throws {
        try context.performAndWait {
            _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date().addingTimeInterval(-7 * 86_400)))
        }
    }
}
// snippet.end

// snippet.generations
/// A stable view of the store while other contexts save: pinned until unpinned, saved, merged or reset.
func readPinned(_ context: NSManagedObjectContext) throws {
    try context.performAndWait {
        try context.setQueryGenerationFrom(.current)           // pinned at the next read
        let before = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Mood"))
        // … other contexts save here; this context still counts `before` moods
        let again = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Mood"))
        assert(before == again)
        try context.setQueryGenerationFrom(nil)                // unpin: lets the -wal file be checkpointed
    }
}
// snippet.end
