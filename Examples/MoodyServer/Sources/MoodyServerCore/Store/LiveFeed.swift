import Logging
import OpenCoreData
import Synchronization

/// `GET /live`'s source: a fetched results controller over every mood, on a private-queue context that
/// merges every save — this process's through `automaticallyMergesChangesFromParent`, other processes' from the
/// store's persistent history on each `.NSPersistentStoreRemoteChange` — and turns the controller's changes into
/// server-sent events for every subscriber.
final class LiveFeed: NSObject, NSFetchedResultsControllerDelegate, @unchecked Sendable {
    // @unchecked Sendable: `controller` and `lastToken` are used only on `context`'s queue; `subscribers` is a Mutex.
    let context: NSManagedObjectContext
    private let store: MoodStore
    private var controller: NSFetchedResultsController<Mood>?
    private var lastToken: NSPersistentHistoryToken?
    private var mergedTransactions = 0
    private let subscribers = Mutex<[UUID: AsyncStream<String>.Continuation]>([:])
    private let observer = Mutex<ObserverToken?>(nil)
    private let heartbeat = Mutex<Task<Void, Never>?>(nil)
    private let stopped = Mutex(false)

    init(store: MoodStore) {
        self.store = store
        context = store.container.newBackgroundContext()
        context.name = "live"
        context.automaticallyMergesChangesFromParent = true
        // On a conflict the store's version wins: this context never saves, it only shows.
        context.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
        super.init()
    }

    /// Fetches the moods and starts following remote changes.
    func start() async throws {
        try await context.perform {
            let request = NSFetchRequest<Mood>(entityName: "Mood")
            request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: true)]
            request.fetchBatchSize = 64
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: self.context,
                                                        sectionNameKeyPath: nil, cacheName: nil)
            controller.delegate = self
            try controller.performFetch()
            self.controller = controller
            self.lastToken = self.store.container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)
        }
        let token = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange,
                                                           object: store.container.persistentStoreCoordinator, queue: nil) { [weak self] _ in
            self?.mergeRemoteChanges()
        }
        observer.withLock { $0 = ObserverToken(token: token) }
        // A comment every 15 s: proxies keep the connection open, and a subscriber that left is noticed.
        heartbeat.withLock {
            $0 = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(15))
                    self?.broadcast(": keep-alive\n\n")
                }
            }
        }
    }

    /// Ends every subscriber's stream (their responses end) and stops following the store.
    func stop() {
        stopped.withLock { $0 = true }
        if let observation = observer.withLock({ $0 }) { NotificationCenter.default.removeObserver(observation.token) }
        observer.withLock { $0 = nil }
        heartbeat.withLock { $0?.cancel(); $0 = nil }
        let all = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }

    /// A new subscriber's events (SSE frames, starting with a comment that says the subscription is in place),
    /// and what ends them.
    func subscribe() -> (events: AsyncStream<String>, end: @Sendable () -> Void) {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        continuation.yield(": subscribed\n\n")
        if stopped.withLock({ $0 }) {
            continuation.finish()
        } else {
            subscribers.withLock { $0[id] = continuation }
        }
        return (stream, { continuation.finish() })
    }

    var subscriberCount: Int { subscribers.withLock { $0.count } }

    private func broadcast(_ frame: String) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(frame) }
    }

    /// One event: `event: insert|update|delete` and the mood (or, for a deletion, its id) as JSON.
    private func send(_ kind: String, _ payload: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(payload), let json = String(data: data, encoding: .utf8) else { return }
        broadcast("event: \(kind)\ndata: \(json)\n\n")
    }

    /// Merges the transactions other authors (other processes, other servers on the file) wrote since the last
    /// merge; this server's own saves reach the context through `automaticallyMergesChangesFromParent`.
    private func mergeRemoteChanges() {
        context.perform { [self] in
            do {
                let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
                let result = try context.execute(request) as? NSPersistentHistoryResult
                for transaction in result?.result as? [NSPersistentHistoryTransaction] ?? [] {
                    if transaction.author != store.author {
                        context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                    }
                    lastToken = transaction.token
                    mergedTransactions += 1
                }
                if mergedTransactions >= 1000 {
                    mergedTransactions = 0
                    // Ten minutes of history is enough for any server following this file.
                    _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date().addingTimeInterval(-600)))
                }
            } catch {
                // The token's history was pruned (a stop longer than the history kept): start again from now.
                store.logger.warning("live feed: history merge failed, refetching", metadata: ["error": "\(error)"])
                lastToken = store.container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)
                context.reset()
                try? controller?.performFetch()
                send("resync", ["reason": "history unavailable; refetch GET /moods"])
            }
        }
    }

    // MARK: NSFetchedResultsControllerDelegate (on the context's queue)

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        guard let mood = anObject as? Mood else { return }
        switch type {
        case .insert: send("insert", MoodJSON(mood))
        case .update, .move: send("update", MoodJSON(mood))
        case .delete: send("delete", ["id": mood.objectID.uriRepresentation().absoluteString])
        @unknown default: break
        }
    }
}

/// A notification observer's token, kept only to remove the observer.
private struct ObserverToken: @unchecked Sendable {  // @unchecked: the token is only handed back to NotificationCenter
    let token: any NSObjectProtocol
}
