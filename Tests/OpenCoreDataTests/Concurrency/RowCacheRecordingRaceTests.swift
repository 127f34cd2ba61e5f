import Foundation
import Testing

import OpenCoreData

/// Rows read from a store must be recorded in the coordinator's row cache while the reader still holds the
/// coordinator's lock: recorded after the lock was released, a row another context deleted in between came back into
/// the cache, and `existingObject(with:)` then returned a deleted object. Fetches from the in-memory store (which does
/// not record rows itself) and faults fired on any store did so.
@Suite("Row cache recording under concurrent deletes", .serialized, .timeLimit(.minutes(2)))
struct RowCacheRecordingRaceTests {
    enum Reading: String, CaseIterable, Sendable {
        /// Fetches that return the rows.
        case fetchingRows
        /// Fetches that return faults, then fired one by one.
        case firingFaults
    }

    @Test("rows read while another context deletes them never come back into the row cache",
          arguments: [NSInMemoryStoreType, NSSQLiteStoreType], Reading.allCases)
    func deletedRowsStayDeleted(storeType: String, reading: Reading) throws {
        let url = storeType == NSSQLiteStoreType ? try TemporaryDirectory.make().appendingPathComponent("Race.sqlite") : nil
        let stack = try MoodyStack(storeType: storeType, url: url)
        let reader = stack.newContext(), writer = stack.newContext(), checker = stack.newContext()
        let rounds = ProcessInfo.processInfo.environment["OPENCOREDATA_STRESS_EDITS"].flatMap(Int.init).map { $0 * 2 } ?? 3_000
        // Rows for every round, which the reader keeps fetching while the writer deletes them one by one.
        let ids = try writer.performAndWait { () throws -> [NSManagedObjectID] in
            let moods = (0..<rounds).map { round -> Mood in
                let mood = Mood(context: writer)
                mood.date = Date(timeIntervalSinceReferenceDate: Double(round))
                return mood
            }
            try writer.save()
            defer { writer.reset() }
            return moods.map(\.objectID)
        }
        let stop = LockedFlag()
        let readerDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            // Fetch the moods over and over; each fetch reads their rows and records them.
            let request = NSFetchRequest<Mood>(entityName: "Mood")
            request.fetchLimit = 50
            request.includesPropertyValues = reading == .fetchingRows
            // Faults read their rows from the store, not from the rows the writer's save left in the cache.
            if reading == .firingFaults { reader.performAndWait { reader.stalenessInterval = 0 } }
            while !stop.isSet {
                reader.performAndWait {
                    let moods = (try? reader.fetch(request)) ?? []
                    if reading == .firingFaults { for mood in moods { _ = try? reader.existingObject(with: mood.objectID) } }
                    reader.reset()
                }
            }
            readerDone.signal()
        }
        var resurrected = 0
        for id in ids {
            try writer.performAndWait {
                writer.delete(try writer.existingObject(with: id))
                try writer.save()
                writer.reset()
            }
            // The row is deleted: no context may find it again.
            let found = checker.performAndWait { () -> Bool in
                defer { checker.reset() }
                return (try? checker.existingObject(with: id)) != nil
            }
            if found { resurrected += 1 }
        }
        stop.set()
        readerDone.wait()
        #expect(resurrected == 0, "\(resurrected) of \(rounds) deleted rows came back through the row cache")
    }
}

/// A flag set once by one thread and read by another.
private final class LockedFlag: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
