import Foundation

@testable import OpenCoreData

/// What one writer (a context of the parent or the child process) did and found; written as JSON by the child.
struct StressReport: Codable, Sendable {
    /// One committed change of a row: the stamp the writer had read and the stamp the file holds afterwards.
    struct Commit: Codable, Sendable, Hashable {
        var entity: String
        var primaryKey: Int64
        var readStamp: Int64
        var newStamp: Int64
    }

    var writer: Int
    var edits = 0
    var saves = 0
    var insertSaves = 0
    /// Conflicts the oracle predicted, and the `NSMergeConflict`s the error policy reported.
    var predictedConflicts = 0
    var reportedConflicts = 0
    var failedSaves = 0
    /// Saves that failed with Core Data's SQLite error (SQLITE_BUSY after the timeout), by code.
    var otherErrors: [Int] = []
    var commits: [Commit] = []
    /// URIs of the objects the writer inserted or updated (for `mergeChanges(fromRemoteContextSave:into:)`).
    var insertedURIs: [String] = []
    var updatedURIs: [String] = []
    var failures: [String] = []
    /// When the writer ran, in seconds of CLOCK_MONOTONIC (comparable across processes).
    var started = 0.0
    var finished = 0.0

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// A small deterministic random generator (SplitMix64), so a failing run can be replayed from its seed.
struct StressRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

/// One context making random edits and saves on the shared store. Every step runs in one `performAndWait`, so the
/// context merges other contexts' saves between steps; each save that may conflict runs under the save lock with
/// the oracle's prediction before it and the check after it.
final class StressWriter {
    let context: NSManagedObjectContext
    let policy: StressPolicy
    let itemIDs: [NSManagedObjectID]
    let bucketIDs: [NSManagedObjectID]
    private let lock: StressSaveLock
    private let reader: StressRawReader
    private var random: StressRandom
    private var stampCounter: Int64 = 0
    private(set) var report: StressReport

    init(writer: Int, context: NSManagedObjectContext, policy: StressPolicy, storePath: String,
         itemIDs: [NSManagedObjectID], bucketIDs: [NSManagedObjectID], seed: UInt64) {
        self.context = context
        self.policy = policy
        self.itemIDs = itemIDs
        self.bucketIDs = bucketIDs
        lock = StressSaveLock(path: storePath + ".stress-lock")
        reader = StressRawReader(path: storePath)
        random = StressRandom(seed: seed &+ UInt64(writer))
        report = StressReport(writer: writer)
    }

    /// A stamp no other writer uses: the writer's number in the high bits.
    private func nextStamp() -> Int64 {
        stampCounter += 1
        return Int64(report.writer + 1) << 40 | stampCounter
    }

    private func fail(_ message: String) {
        report.failures.append("writer \(report.writer), \(policy), edit \(report.edits): \(message)")
    }

    /// Makes `edits` edits, saving every few of them, and a last save; `onStart` runs once the start is recorded.
    func run(edits: Int, onStart: () -> Void = {}) -> StressReport {
        report.started = StressReport.now()
        onStart()
        for step in 0..<edits {
            context.performAndWait {
                edit(step)
                if random.next(3) == 0 || step == edits - 1 { lockedSave() }
                if random.next(15) == 0 && !context.hasChanges { insertSave(step) }
            }
            if report.failures.count > 20 { break }
        }
        context.performAndWait { if context.hasChanges { lockedSave() } }
        report.finished = StressReport.now()
        return report
    }

    /// One random change of one seeded item.
    private func edit(_ step: Int) {
        let item = context.object(with: itemIDs[random.next(itemIDs.count)])
        switch random.next(10) {
        case 0..<3: item.setValue("w\(report.writer)-\(step)", forKey: "title")
        case 3..<6: item.setValue(Int64(random.next(1000)), forKey: "count")
        case 6..<8: item.setValue(Double(random.next(1000)) / 4, forKey: "score")
        default:
            let bucket = random.next(5) == 0 ? nil : context.object(with: bucketIDs[random.next(bucketIDs.count)])
            item.setValue(bucket, forKey: "bucket")
        }
        report.edits += 1
    }

    /// New items (in no bucket, so no stored object changes with them) saved without the lock: they cannot
    /// conflict, and they make both processes contend for SQLite's write lock and the primary-key counters.
    private func insertSave(_ step: Int) {
        var inserted: [NSManagedObject] = []
        for _ in 0...random.next(2) {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue(nextStamp(), forKey: "stamp")
            item.setValue("new w\(report.writer)-\(step)", forKey: "title")
            inserted.append(item)
        }
        do {
            try context.save()
            report.insertSaves += 1
            report.insertedURIs += inserted.map { $0.objectID.uriRepresentation().absoluteString }
        } catch let error as NSError {
            recordOtherError(error)
        }
    }

    private func recordOtherError(_ error: NSError) {
        // SQLITE_BUSY past the timeout must surface as Core Data's SQLite error (StoreBusyTests); anything else
        // is a failure.
        if error.domain == NSCocoaErrorDomain && error.code == NSSQLiteError {
            report.otherErrors.append(error.code)
        } else {
            fail("unexpected error \(error)")
        }
        context.rollback()
    }

    /// Predicts, saves and checks, under the lock.
    private func lockedSave() {
        lock.withLock {
            context.processPendingChanges()
            guard context.hasChanges else { return }
            for object in context.updatedObjects.union(context.insertedObjects) { object.setValue(nextStamp(), forKey: "stamp") }
            context.processPendingChanges()
            let predictions = context.updatedObjects.map { SavePrediction($0, reader: reader) }
            let conflicting = predictions.filter(\.conflicts)
            if policy == .error {
                for prediction in predictions where prediction.conflicts != prediction.conflictsByStamp {
                    fail("\(prediction.object.objectID): read version \(prediction.readVersion) with stamp \(prediction.committed["stamp"]!), file has version \(prediction.stored.version) with stamp \(prediction.stored.values["stamp"]!)")
                }
            }
            report.predictedConflicts += conflicting.count
            let inserted = Array(context.insertedObjects)
            do {
                try context.save()
            } catch let error as NSError where error.code == NSManagedObjectMergeError {
                checkFailedSave(error, predictions: predictions, conflicting: conflicting)
                return
            } catch let error as NSError {
                recordOtherError(error)
                return
            }
            report.saves += 1
            report.insertedURIs += inserted.map { $0.objectID.uriRepresentation().absoluteString }
            checkSucceededSave(predictions: predictions, conflicting: conflicting)
        }
    }

    private func checkSucceededSave(predictions: [SavePrediction], conflicting: [SavePrediction]) {
        if policy == .error && !conflicting.isEmpty {
            fail("the save succeeded although \(conflicting.count) object(s) were committed by others since they were read: lost updates of \(conflicting.map(\.object.objectID))")
        }
        if context.hasChanges { fail("changes remain after a successful save") }
        for prediction in predictions {
            let expected = prediction.expectedAfterSave(policy)
            let stored = reader.row(prediction.entity, prediction.primaryKey)
            if stored != expected {
                fail("\(prediction.object.objectID) \(prediction.conflicts ? "in conflict" : "without conflict"): file has \(String(describing: stored)), expected \(expected) (read \(prediction.committed) v\(prediction.readVersion), had \(prediction.current), file had \(prediction.stored))")
            }
            if prediction.object.stressCurrent != expected.values {
                fail("\(prediction.object.objectID) shows \(prediction.object.stressCurrent) after the save, expected \(expected.values)")
            }
            guard expected.version != prediction.stored.version, case .integer(let read)? = prediction.committed["stamp"],
                case .integer(let new)? = expected.values["stamp"]
            else { continue }
            report.commits.append(.init(entity: prediction.entity, primaryKey: prediction.primaryKey, readStamp: read, newStamp: new))
            report.updatedURIs.append(prediction.object.objectID.uriRepresentation().absoluteString)
        }
    }

    private func checkFailedSave(_ error: NSError, predictions: [SavePrediction], conflicting: [SavePrediction]) {
        report.failedSaves += 1
        let list = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict] ?? []
        report.reportedConflicts += list.count
        if policy != .error { fail("\(policy) did not resolve the conflicts: \(error)") }
        if conflicting.isEmpty { fail("a save without a real conflict failed: \(list)") }
        if list.count != conflicting.count {
            fail("\(list.count) conflicts reported, the oracle expected \(conflicting.count) (\(conflicting.map(\.object.objectID)))")
        }
        if Set(list.map(\.sourceObject.objectID)) != Set(conflicting.map(\.object.objectID)) {
            fail("conflicts reported for \(list.map(\.sourceObject.objectID)), expected \(conflicting.map(\.object.objectID))")
        }
        for conflict in list {
            guard let prediction = predictions.first(where: { $0.object === conflict.sourceObject }) else { continue }
            if conflict.oldVersionNumber != Int(prediction.readVersion) || conflict.newVersionNumber != Int(prediction.stored.version) {
                fail("conflict versions old \(conflict.oldVersionNumber)/new \(conflict.newVersionNumber), expected \(prediction.readVersion)/\(prediction.stored.version)")
            }
        }
        for prediction in predictions where reader.row(prediction.entity, prediction.primaryKey) != prediction.stored {
            fail("a failed save changed \(prediction.object.objectID)")
        }
        // Apple's advice for the error policy: the app decides; this one gives up its changes and goes on.
        context.rollback()
    }
}
