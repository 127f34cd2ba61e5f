import Foundation
import Testing

@testable import OpenCoreData

// NSPersistentStoreRemoteChange within one process: a second coordinator on the same file writes, the first one's
// watcher notices (PRAGMA data_version polling, DEVIATIONS.md H2); and batch requests record history too.

/// Waits (polling) until `condition` holds or `timeout` passes; returns whether it held.
func waitForCondition(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return condition()
}

/// Collects NSPersistentStoreRemoteChange notifications of one coordinator, with their arrival times.
final class RemoteChangeRecorder: @unchecked Sendable {
    // @unchecked Sendable: `received` is a LockedBox; `observer` is written once in init and read in deinit.
    struct Received {
        let time: Date
        let token: NSPersistentHistoryToken?
        let url: URL?
        let storeUUID: String?
    }

    let received = LockedBox<[Received]>([])
    private var observer: (any NSObjectProtocol)?

    init(_ coordinator: NSPersistentStoreCoordinator) {
        let received = self.received
        observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { note in
            let item = Received(time: Date(), token: note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken,
                                url: note.userInfo?[NSPersistentStoreURLKey] as? URL, storeUUID: note.userInfo?[NSStoreUUIDKey] as? String)
            received.mutate { $0.append(item) }
        }
    }

    deinit { if let observer { NotificationCenter.default.removeObserver(observer) } }

    /// The first notification whose token is `token`, waiting up to `timeout`.
    func first(withToken token: NSPersistentHistoryToken?, timeout: TimeInterval = 5) -> Received? {
        _ = waitForCondition(timeout: timeout) { received.value.contains { $0.token == token } }
        return received.value.first { $0.token == token }
    }
}

@Suite("Remote change notifications and batch history", .timeLimit(.minutes(1)))
struct RemoteChangeTests {
    @Test("a second coordinator's save is announced to the first with the new history token; own saves are announced too")
    func secondCoordinator() throws {
        let watched = try HistoryStack(options: HistoryStack.trackingAndRemoteChanges)
        let recorder = RemoteChangeRecorder(watched.coordinator)
        let own = watched.context(author: "own")
        try own.performAndWait {
            own.insertNote("mine")
            try own.save()
        }
        let ownToken = watched.coordinator.currentPersistentHistoryToken(fromStores: nil)
        let ownNote = try #require(recorder.first(withToken: ownToken))
        #expect(ownNote.url?.standardizedFileURL == watched.url.standardizedFileURL)
        #expect(ownNote.storeUUID == watched.store.identifier)

        let writer = try HistoryStack(url: watched.url)   // no remote-change option: it only writes
        let context = writer.context(author: "neighbour")
        let saved = try context.performAndWait {
            context.insertNote("theirs")
            try context.save()
            return Date()
        }
        let theirToken = writer.coordinator.currentPersistentHistoryToken(fromStores: nil)
        #expect(theirToken != ownToken)
        let theirs = try #require(recorder.first(withToken: theirToken), "no notification for the other coordinator's save")
        let latency = theirs.time.timeIntervalSince(saved)
        print("in-process remote change latency: \(String(format: "%.3f", latency)) s")
        #expect(latency < 2.0)   // generous: the machine may be loaded
        // The watched side reads that history after its own token.
        let reader = watched.context()
        let transactions = try reader.performAndWait { try reader.transactions(after: ownToken) }
        #expect(transactions.map(\.author) == ["neighbour"])
        #expect(transactions.last?.token == theirToken)
        // A store without the option posts nothing.
        let silentRecorder = RemoteChangeRecorder(writer.coordinator)
        try own.performAndWait {
            own.insertNote("again")
            try own.save()
        }
        Thread.sleep(forTimeInterval: 0.4)
        #expect(silentRecorder.received.value.isEmpty)
    }

    @Test("merging another coordinator's history updates, inserts and deletes registered objects")
    func mergeFromHistory() throws {
        let stack = try HistoryStack()
        let view = stack.context(name: "view")
        let (kept, doomed, token) = try view.performAndWait {
            let kept = view.insertNote("kept"), doomed = view.insertNote("doomed")
            try view.save()
            _ = kept.value(forKey: "title")
            _ = doomed.value(forKey: "title")
            return (kept, doomed, stack.coordinator.currentPersistentHistoryToken(fromStores: nil))
        }
        let other = try HistoryStack(url: stack.url)
        let writer = other.context(author: "other")
        try writer.performAndWait {
            let notes = try writer.notes()
            for note in notes where note.value(forKey: "title") as? String == "kept" { note.setValue("renamed", forKey: "title") }
            for note in notes where note.value(forKey: "title") as? String == "doomed" { writer.delete(note) }
            writer.insertNote("new")
            try writer.save()
        }
        try view.performAndWait {
            let transactions = try view.transactions(after: token)
            #expect(transactions.map(\.author) == ["other"])
            let userInfo = transactions.first?.objectIDNotification().userInfo
            #expect((userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObjectID>) == [doomed.objectID])
            #expect((userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObjectID>) == [kept.objectID])
            #expect((userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObjectID>)?.count == 1)
            for transaction in transactions { view.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
            #expect(kept.value(forKey: "title") as? String == "renamed")
            #expect(view.registeredObject(for: doomed.objectID) == nil || doomed.isDeleted)
            #expect(try view.noteTitles() == ["new", "renamed"])
        }
    }

    @Test("remote change latency at the default interval, over 10 writes by another coordinator")
    func defaultLatency() throws {
        let watched = try HistoryStack(options: HistoryStack.trackingAndRemoteChanges)
        let recorder = RemoteChangeRecorder(watched.coordinator)
        let writer = try HistoryStack(url: watched.url)
        let context = writer.context()
        var latencies: [TimeInterval] = []
        for index in 0..<10 {
            Thread.sleep(forTimeInterval: Double.random(in: 0..<RemoteChangePolling.interval))   // not in step with the polling
            let saved = try context.performAndWait {
                context.insertNote("n\(index)")
                try context.save()
                return Date()
            }
            let token = writer.coordinator.currentPersistentHistoryToken(fromStores: nil)
            let received = try #require(recorder.first(withToken: token, timeout: 2), "write \(index) not announced")
            latencies.append(received.time.timeIntervalSince(saved))
        }
        let mean = latencies.reduce(0, +) / Double(latencies.count)
        print("remote change latency at the default \(RemoteChangePolling.interval) s interval over 10 writes: mean \(String(format: "%.3f", mean)) s, max \(String(format: "%.3f", latencies.max() ?? 0)) s")
        #expect(mean < RemoteChangePolling.interval * 3)   // generous: the machine may be loaded
        #expect((latencies.max() ?? 0) < 2.0)
    }

    @Test("a store opened with the remote-change option but without history posts notifications without a token")
    func withoutHistory() throws {
        let watched = try HistoryStack(options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let recorder = RemoteChangeRecorder(watched.coordinator)
        let writer = try HistoryStack(url: watched.url, options: nil)
        let context = writer.context()
        try context.performAndWait {
            context.insertNote("x")
            try context.save()
        }
        #expect(waitUntil { !recorder.received.value.isEmpty })
        #expect(recorder.received.value.first?.token == nil)
        #expect(recorder.received.value.first?.url?.standardizedFileURL == watched.url.standardizedFileURL)
    }

    @Test("a removed store, or a released coordinator, stops posting")
    func stopsWhenRemoved() throws {
        let watched = try HistoryStack(options: HistoryStack.trackingAndRemoteChanges)
        let recorder = RemoteChangeRecorder(watched.coordinator)
        try watched.coordinator.remove(watched.store)
        var released: HistoryStack? = try HistoryStack(url: watched.url, options: HistoryStack.trackingAndRemoteChanges)
        weak let weakCoordinator = released?.coordinator
        released = nil
        #expect(weakCoordinator == nil)
        let writer = try HistoryStack(url: watched.url)
        let context = writer.context()
        try context.performAndWait {
            context.insertNote("after removal")
            try context.save()
        }
        Thread.sleep(forTimeInterval: 0.4)
        #expect(recorder.received.value.isEmpty)
    }

    @Test("batch insert, update and delete each record one transaction, with tombstones and updated properties")
    func batchRequests() throws {
        let stack = try HistoryStack()
        let context = stack.context(name: "importer", author: "batch")
        try context.performAndWait {
            let insert = NSBatchInsertRequest(entityName: "Note", objects: [
                ["title": "one", "remoteID": "r1", "rating": 1], ["title": "two", "remoteID": "r2", "rating": 2],
            ])
            _ = try context.execute(insert)
            let update = NSBatchUpdateRequest(entityName: "Note")
            update.predicate = NSPredicate(format: "title == 'two'")
            update.propertiesToUpdate = ["rating": 9]
            _ = try context.execute(update)
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Note"))
            _ = try context.execute(delete)
        }
        let history = try context.performAndWait { try context.transactions(after: nil) }
        #expect(history.count == 3)
        #expect(history.allSatisfy { $0.author == "batch" && $0.contextName == "importer" })
        #expect(history.map { $0.changes?.map(\.changeType) ?? [] } == [[.insert, .insert], [.update], [.delete, .delete]])
        let inserted = history[0].changes?.map(\.changedObjectID) ?? []
        #expect(Set(history[2].changes?.map(\.changedObjectID) ?? []) == Set(inserted))
        #expect(history[1].changes?.first?.updatedProperties.map { Set($0.map(\.name)) } == ["rating"])
        #expect(Set(history[2].changes?.compactMap { $0.tombstone?["remoteID"] as? String } ?? []) == ["r1", "r2"])
        let raw = try RawSQL.rows(stack.url, "SELECT ZCHANGETYPE, count(*) FROM ACHANGE GROUP BY ZCHANGETYPE ORDER BY 1")
        #expect(raw == [[.integer(0), .integer(2)], [.integer(1), .integer(1)], [.integer(2), .integer(2)]])
    }

    @Test("history costs: 10,000 rows by batch insert, update and delete, with and without tracking (timings printed)")
    func batchCost() throws {
        var timings: [String] = []
        for options in [nil, HistoryStack.tracking] as [[AnyHashable: Any]?] {
            let stack = try HistoryStack(options: options)
            let context = stack.context()
            let start = Date()
            try context.performAndWait {
                let objects = (0..<10_000).map { ["title": "t\($0)", "remoteID": "r\($0)", "rating": $0 % 5] as [String: Any] }
                _ = try context.execute(NSBatchInsertRequest(entityName: "Note", objects: objects))
                let update = NSBatchUpdateRequest(entityName: "Note")
                update.propertiesToUpdate = ["rating": 9]
                _ = try context.execute(update)
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Note")))
            }
            let elapsed = Date().timeIntervalSince(start)
            timings.append("\(options == nil ? "without" : "with") history: \(String(format: "%.2f", elapsed)) s")
            if options != nil {
                #expect(try RawSQL.value(stack.url, "SELECT count(*) FROM ACHANGE") == .integer(30_000))
                #expect(try RawSQL.value(stack.url, "SELECT count(*) FROM ACHANGE WHERE ZCHANGETYPE = 2 AND ZTOMBSTONE0 IS NOT NULL") == .integer(10_000))
            }
            #expect(elapsed < 60)
        }
        print("10,000-row batch insert + update + delete: " + timings.joined(separator: ", "))
    }

    @Test("a batch request is announced as a remote change too")
    func batchNotification() throws {
        let stack = try HistoryStack(options: HistoryStack.trackingAndRemoteChanges)
        let recorder = RemoteChangeRecorder(stack.coordinator)
        let context = stack.context()
        try context.performAndWait {
            _ = try context.execute(NSBatchInsertRequest(entityName: "Note", objects: [["title": "x"]]))
        }
        let token = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)
        #expect(recorder.first(withToken: token) != nil)
    }
}
