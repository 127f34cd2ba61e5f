import Foundation
import Testing

@testable import OpenCoreData

// Must-show A: another process saves to the store; this process is told (NSPersistentStoreRemoteChange with the
// history token), fetches the history after its last token and merges it into a context, whose registered objects
// then show the other process's values.

/// The environment variable that gives the child process the store's path (an exit-test body cannot capture).
let crossProcessStoreVariable = "OCD_HISTORY_CROSS_PROCESS_STORE"

@Suite("Persistent history across processes", .timeLimit(.minutes(1)))
struct HistoryCrossProcessTests {
    @Test("a second process's save is announced, found through history and merged into a context")
    func secondProcess() async throws {
        let stack = try HistoryStack(options: HistoryStack.trackingAndRemoteChanges)
        let recorder = RemoteChangeRecorder(stack.coordinator)
        let viewContext = stack.context(name: "view", author: "app")
        let (note, lastToken) = try viewContext.performAndWait {
            let note = viewContext.insertNote("shared", rating: 1)
            try viewContext.save()
            _ = note.value(forKey: "title")   // registered and realized
            return (note, stack.coordinator.currentPersistentHistoryToken(fromStores: nil))
        }
        let noteID = note.objectID
        let timeFile = stack.url.deletingLastPathComponent().appendingPathComponent("child-commit-time")
        setenv(crossProcessStoreVariable, stack.url.path, 1)

        await #expect(processExitsWith: .success) {
            guard let path = ProcessInfo.processInfo.environment[crossProcessStoreVariable] else { preconditionFailure("no store path") }
            let url = URL(fileURLWithPath: path)
            let child = try! HistoryStack(url: url)   // tracking, no remote-change option
            let context = child.context(name: "child-context", author: "child-process")
            try! context.performAndWait {
                let notes = try context.notes("title == 'shared'")
                precondition(notes.count == 1, "the child sees \(notes.count) shared notes")
                notes[0].setValue(NSNumber(value: 42), forKey: "rating")
                notes[0].setValue("from the child", forKey: "body")
                context.insertNote("child note", remoteID: "c-1")
                try context.save()
            }
            let committed = Date().timeIntervalSince1970
            try! String(committed).write(to: url.deletingLastPathComponent().appendingPathComponent("child-commit-time"), atomically: true, encoding: .utf8)
        }

        // The child's transaction is the only one after our token.
        let transactions = try viewContext.performAndWait { try viewContext.transactions(after: lastToken) }
        #expect(transactions.count == 1)
        let transaction = try #require(transactions.first)
        #expect(transaction.author == "child-process")
        #expect(transaction.contextName == "child-context")
        #expect(Set(transaction.changes?.map(\.changeType) ?? []) == [.insert, .update])
        #expect(transaction.changes?.first { $0.changeType == .update }?.changedObjectID == noteID)

        // The notification of the other process's write carries that transaction's token.
        let received = try #require(recorder.first(withToken: transaction.token), "no NSPersistentStoreRemoteChange for the child's save")
        #expect(received.url?.standardizedFileURL == stack.url.standardizedFileURL)
        let committed = try #require(TimeInterval(String(contentsOf: timeFile, encoding: .utf8)))
        let latency = received.time.timeIntervalSince1970 - committed
        print("cross-process remote change latency: \(String(format: "%.3f", latency)) s (polling interval \(RemoteChangePolling.interval) s)")
        #expect(latency < 2.0)   // generous: the machine may be loaded

        // Merge as Apple's sample code does, and read the child's values through the registered object.
        try viewContext.performAndWait {
            #expect(note.value(forKey: "rating") as? Int32 == 1)   // not merged yet
            for transaction in transactions {
                viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            }
            #expect(note.value(forKey: "rating") as? Int32 == 42)
            #expect(note.value(forKey: "body") as? String == "from the child")
            #expect(try viewContext.noteTitles() == ["child note", "shared"])
            let inserted = try #require(transaction.changes?.first { $0.changeType == .insert }?.changedObjectID)
            #expect(viewContext.object(with: inserted).value(forKey: "remoteID") as? String == "c-1")
        }
        #expect(stack.coordinator.currentPersistentHistoryToken(fromStores: nil) == transaction.token)
    }

    @Test("OPENCOREDATA_REMOTE_CHANGE_INTERVAL shortens the polling interval (measured over 20 writes)")
    func pollingInterval() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            setenv("OPENCOREDATA_REMOTE_CHANGE_INTERVAL", "0.02", 1)
            precondition(RemoteChangePolling.interval == 0.02)
            let watched = try! HistoryStack(options: HistoryStack.trackingAndRemoteChanges)
            let recorder = RemoteChangeRecorder(watched.coordinator)
            let writer = try! HistoryStack(url: watched.url)
            let context = writer.context()
            var latencies: [TimeInterval] = []
            for index in 0..<20 {
                usleep(UInt32.random(in: 0..<20_000))   // not in step with the polling
                let saved = try! context.performAndWait {
                    context.insertNote("n\(index)")
                    try context.save()
                    return Date()
                }
                let token = writer.coordinator.currentPersistentHistoryToken(fromStores: nil)
                guard let received = recorder.first(withToken: token, timeout: 2) else { preconditionFailure("write \(index) not announced") }
                latencies.append(received.time.timeIntervalSince(saved))
            }
            let mean = latencies.reduce(0, +) / Double(latencies.count)
            print("remote change latency at a 0.02 s interval over 20 writes: mean \(String(format: "%.3f", mean)) s, max \(String(format: "%.3f", latencies.max() ?? 0)) s")
            precondition(mean < 0.05, "mean latency \(mean) s")
        }
        print(String(decoding: result?.standardOutputContent ?? [], as: UTF8.self).split(separator: "\n").filter { $0.contains("latency") }.joined(separator: "\n"))
    }
}
