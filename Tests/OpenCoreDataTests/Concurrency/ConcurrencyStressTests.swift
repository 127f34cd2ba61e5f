import Foundation
import Testing

@testable import OpenCoreData

// Four background contexts and the view context of one container, and a second process with its own stack, make
// random edits and saves on one SQLite file at the same time, once per built-in merge policy: attribute edits, moves
// between buckets, insertions into and removals from a bucket's ordered queue and exchanges in it, tag pairs added
// and removed from either side, insertions, and deletions under every delete rule (an item's tags: no action, which
// the writer clears as Apple asks; a bucket's items: nullify, its queue: cascade; a tag's items: deny). Saves that can
// conflict run under a cross-process lock with an oracle that reads the file before and after (StressOracle.swift);
// the checks:
// - every save fails or succeeds as the oracle predicts: a deny rule's validation error, the error policy's merge
//   error listing exactly the objects committed by someone else since the context read them, or success — and then
//   the file holds exactly the predicted rows, versions, tag pairs and queue orders;
// - error policy: afterwards every object's commits form one chain (no update lost silently);
// - afterwards every context, after merging (its siblings' saves automatically, the other process's through
//   `mergeChanges(fromRemoteContextSave:into:)`), shows what a fresh fetch on a new stack reads — values and both
//   sides of every relationship, the queues in order — and that is what the file holds.
// OPENCOREDATA_STRESS_EDITS sets the edits per context (200 by default; 5000 is the long mode), OPENCOREDATA_STRESS_SEED
// the seed (printed by each run), OPENCOREDATA_STRESS_SKIP the edit kinds left out (comma-separated StressEdit raw
// values; by default the ordered-queue edits, bucket and tag deletions and tag pairs, with which differences remain:
// StressEdit.skippedByDefault; `OPENCOREDATA_STRESS_SKIP=` runs them all).

extension StressPolicy: CustomTestStringConvertible {
    var testDescription: String { rawValue }
}

@Suite("ConcurrencyStress", .serialized, .timeLimit(.minutes(30)))
struct ConcurrencyStressTests {
    @Test(arguments: StressPolicy.allCases)
    func contextsAndASecondProcessHammerOneStore(_ policy: StressPolicy) async throws {
        let run = try StressRun(policy: policy)
        let edits = StressConfiguration.editsPerContext
        setenv(StressConfiguration.storePathVariable, run.url.path, 1)   // exit-test bodies cannot capture it
        let clock = ContinuousClock.now

        async let parent = run.runParentWriters(edits: edits)
        async let childExited: Bool = Self.runChild(policy)
        let (contexts, parentReports) = await parent
        let childSucceeded = await childExited
        let child = try? run.childReport()
        #expect(childSucceeded, "the child process failed: \(child?.failures.joined(separator: "\n") ?? "no report")")
        let reports = parentReports + (child.map { [$0] } ?? [])
        for report in reports {
            #expect(report.failures.isEmpty, "\(report.failures.prefix(10).joined(separator: "\n"))")
        }
        if let child, let first = parentReports.map(\.started).min(), let last = parentReports.map(\.finished).max() {
            #expect(child.started < last && first < child.finished, "the two processes did not write at the same time")
        }

        try checkContextsAgreeWithAFreshFetch(run, contexts: contexts, child: child)
        if policy == .error { checkNoUpdateWasLost(run, reports: reports) }

        let total = reports.reduce(into: StressReport(writer: -1)) { sum, report in
            sum.edits += report.edits
            sum.saves += report.saves
            sum.predictedConflicts += report.predictedConflicts
            sum.reportedConflicts += report.reportedConflicts
            sum.failedSaves += report.failedSaves
            sum.insertSaves += report.insertSaves
            sum.predictedDenials += report.predictedDenials
            sum.reportedDenials += report.reportedDenials
            sum.otherErrors += report.otherErrors
            sum.editCounts.merge(report.editCounts, uniquingKeysWith: +)
        }
        #expect(total.edits > edits * 6 / 2, "most steps make an edit")
        #expect(total.predictedConflicts > 0, "the stress produced no conflict at all; it tests nothing")
        #expect(total.reportedDenials == total.predictedDenials)
        if policy == .error {
            #expect(total.reportedConflicts == total.predictedConflicts)
        }
        let kinds = StressEdit.enabled.map { "\($0.rawValue) \(total.editCounts[$0.rawValue, default: 0])" }.joined(separator: ", ")
        print("ConcurrencyStress \(policy): seed \(StressRun.seed), \(total.edits) edits (\(kinds)), \(total.saves) saves, "
            + "\(total.insertSaves) insert saves, \(total.predictedConflicts) conflicts predicted, \(total.reportedConflicts) reported "
            + "(\(policy == .error ? "error policy: each fails its save" : "resolved by the policy")), \(total.failedSaves) failed saves, "
            + "\(total.predictedDenials) denials predicted, \(total.reportedDenials) seen, \(total.otherErrors.count) other Core Data errors (busy), "
            + "\(ContinuousClock.now - clock)")
    }

    /// Runs the child process of `policy` (exit-test bodies cannot capture the policy, hence one body each).
    private static func runChild(_ policy: StressPolicy) async -> Bool {
        let result: ExitTest.Result?
        switch policy {
        case .error: result = await #expect(processExitsWith: .success) { StressRun.childMain(.error) }
        case .storeTrump: result = await #expect(processExitsWith: .success) { StressRun.childMain(.storeTrump) }
        case .objectTrump: result = await #expect(processExitsWith: .success) { StressRun.childMain(.objectTrump) }
        case .overwrite: result = await #expect(processExitsWith: .success) { StressRun.childMain(.overwrite) }
        case .rollback: result = await #expect(processExitsWith: .success) { StressRun.childMain(.rollback) }
        }
        return result != nil   // nil: the exit test failed (and recorded why)
    }

    /// Each context merges what is left to merge, then shows what a fresh fetch on a new stack reads, which is
    /// what the file holds.
    private func checkContextsAgreeWithAFreshFetch(_ run: StressRun, contexts: [NSManagedObjectContext], child: StressReport?) throws {
        // Saves of sibling contexts are merged on each context's queue: one more turn of each queue drains them.
        for context in contexts { context.performAndWait {} }
        // The other process's saves, as Apple documents for changes made elsewhere.
        if let child {
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [
                NSInsertedObjectsKey: child.insertedURIs.compactMap(URL.init(string:)),
                NSUpdatedObjectsKey: child.updatedURIs.compactMap(URL.init(string:)),
                NSDeletedObjectsKey: child.deletedURIs.compactMap(URL.init(string:)),
            ], into: contexts)
        }

        let fresh = try StressModel.container(at: run.url).newBackgroundContext()
        let freshRows = try fresh.performAndWait { try Self.rowsByKey(in: fresh) }
        let reader = StressRawReader(path: run.url.path)
        #expect(reader.integrityCheck() == ["ok"])
        let file = reader.fileState()
        #expect(file.rows.count == freshRows.count, "the file has \(file.rows.count) objects, a fresh fetch \(freshRows.count)")
        for (key, row) in file.rows {
            let expected = MergedObject(values: row.values, members: Self.members(of: key, in: file))
            if freshRows[key] != expected {
                Issue.record("a fresh fetch of \(key) shows \(String(describing: freshRows[key])), the file has \(expected)")
            }
        }
        // Nothing in the file points at a row that is not there.
        for (key, row) in file.rows {
            for (name, entity) in StressModel.toOneKeys {
                if case .integer(let destination)? = row.values[name], file.rows[StressKey(entity: entity, primaryKey: destination)] == nil {
                    Issue.record("\(key).\(name) points at \(entity) \(destination), which the file does not have")
                }
            }
        }
        for pair in file.pairs where file.row("Item", pair.item) == nil || file.row("Tag", pair.tag) == nil {
            Issue.record("the file pairs item \(pair.item) with tag \(pair.tag), and one of them is not there")
        }
        for (index, context) in contexts.enumerated() {
            let rows = try context.performAndWait { try Self.rowsByKey(in: context) }
            #expect(rows.count == freshRows.count, "context \(index) sees \(rows.count) objects, a fresh fetch \(freshRows.count)")
            let disagreements = rows.filter { freshRows[$0.key] != $0.value }.map { key, row in
                "\(key): \(row) vs fresh \(String(describing: freshRows[key]))"
            }
            #expect(disagreements.isEmpty, "context \(index) disagrees with a fresh fetch after merging:\n\(disagreements.prefix(10).joined(separator: "\n"))")
        }
    }

    struct MergedObject: Equatable, CustomStringConvertible {
        var values: StressRow
        /// The object's to-manys by name, by primary key: sorted for the unordered ones, in order for the queue.
        var members: [String: [Int64]]

        var description: String { "\(values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")) \(members.sorted { $0.key < $1.key })" }
    }

    private static let toManyKeys = ["Item": ["tags"], "Bucket": ["items", "queue"], "Tag": ["items"]]

    /// The to-manys of an object as the file has them.
    private static func members(of key: StressKey, in file: FileState) -> [String: [Int64]] {
        switch key.entity {
        case "Item": ["tags": file.tags(of: key.primaryKey).sorted()]
        case "Bucket": ["items": file.items("bucket", of: key.primaryKey), "queue": file.queue(of: key.primaryKey)]
        default: ["items": file.items(ofTag: key.primaryKey).sorted()]
        }
    }

    /// Every object the context shows (fetched, so objects it never saw are included), with its to-manys.
    private static func rowsByKey(in context: NSManagedObjectContext) throws -> [StressKey: MergedObject] {
        var rows: [StressKey: MergedObject] = [:]
        for entity in StressModel.entities {
            for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)) {
                var members: [String: [Int64]] = [:]
                for key in toManyKeys[entity] ?? [] {
                    let value = object.value(forKey: key)
                    if let ordered = value as? NSOrderedSet {
                        members[key] = ordered.array.compactMap { ($0 as? NSManagedObject)?.objectID.primaryKey }
                    } else {
                        members[key] = ((value as? NSSet)?.allObjects ?? []).compactMap { ($0 as? NSManagedObject)?.objectID.primaryKey }.sorted()
                    }
                }
                rows[StressKey(entity: entity, primaryKey: object.objectID.primaryKey ?? -1)] = MergedObject(values: object.stressCurrent, members: members)
            }
        }
        return rows
    }

    /// Under the error policy every committed version of a row was written by a writer that had read the version
    /// before it: each row's commits form one chain from the seeded stamp to the stamp in the file. Two commits
    /// from the same read version would be a lost update.
    private func checkNoUpdateWasLost(_ run: StressRun, reports: [StressReport]) {
        let reader = StressRawReader(path: run.url.path)
        let commits = Dictionary(grouping: reports.flatMap(\.commits)) { StressKey(entity: $0.entity, primaryKey: $0.primaryKey) }
        for (key, objectCommits) in commits {
            let next = Dictionary(objectCommits.map { ($0.readStamp, [$0.newStamp]) }, uniquingKeysWith: +)
            for (read, written) in next where written.count > 1 {
                Issue.record("\(key): \(written.count) commits were made from the version with stamp \(read) — lost updates")
            }
            // Follow the chain from the one stamp nobody wrote (the first version this suite saw).
            let writtenStamps = Set(objectCommits.map(\.newStamp))
            let roots = Set(objectCommits.map(\.readStamp)).subtracting(writtenStamps)
            guard roots.count == 1, var stamp = roots.first else {
                Issue.record("\(key): the commits do not form one chain (roots \(roots))")
                continue
            }
            var length = 0
            while let following = next[stamp]?.first, length <= objectCommits.count {
                stamp = following
                length += 1
            }
            #expect(length == objectCommits.count, "\(key): chain of \(length) of \(objectCommits.count) commits")
            if let row = reader.row(key.entity, key.primaryKey) {
                #expect(row.values["stamp"] == .integer(stamp), "\(key): the file does not hold the last commit")
            }
        }
    }
}
