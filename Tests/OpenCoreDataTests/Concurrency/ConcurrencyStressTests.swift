import Foundation
import Testing

@testable import OpenCoreData

// Four background contexts and the view context of one container, and a second process with its own stack, make
// random edits and saves on one SQLite file at the same time, once per built-in merge policy. Saves that can
// conflict run under a cross-process lock with an oracle that reads the file before and after (StressOracle.swift);
// the checks:
// - error policy: a save fails exactly when an object it writes was committed by someone else since the context
//   read it, and its conflictList holds exactly those objects; afterwards every object's commits form one chain
//   (no commit overwrote a version its writer had not read: no update lost silently);
// - the other policies: every save succeeds and the file holds Apple's documented outcome for each object;
// - afterwards every context, after merging (its siblings' saves automatically, the other process's through
//   `mergeChanges(fromRemoteContextSave:into:)`), shows what a fresh fetch on a new stack reads, and that is what
//   the file holds.
// OPENCOREDATA_STRESS_EDITS sets the edits per context (200 by default; 2000 is the long mode).

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

        let total = reports.reduce(into: (edits: 0, saves: 0, predicted: 0, reported: 0, failed: 0, inserts: 0, other: 0)) { sum, report in
            sum.edits += report.edits
            sum.saves += report.saves
            sum.predicted += report.predictedConflicts
            sum.reported += report.reportedConflicts
            sum.failed += report.failedSaves
            sum.inserts += report.insertSaves
            sum.other += report.otherErrors.count
        }
        #expect(total.edits == edits * 6)
        #expect(total.predicted > 0, "the stress produced no conflict at all; it tests nothing")
        if policy == .error {
            #expect(total.reported == total.predicted)
        } else {
            #expect(total.failed == 0)
        }
        print("ConcurrencyStress \(policy): \(total.edits) edits, \(total.saves) saves, \(total.inserts) insert saves, "
            + "\(total.predicted) conflicts predicted, \(total.reported) reported in \(total.failed) failed saves, "
            + "\(total.other) other Core Data errors (busy), seed \(StressRun.seed), \(ContinuousClock.now - clock)")
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
            ], into: contexts)
        }

        let fresh = try StressModel.container(at: run.url).newBackgroundContext()
        let freshRows = try fresh.performAndWait { try Self.rowsByKey(in: fresh) }
        let reader = StressRawReader(path: run.url.path)
        #expect(reader.integrityCheck() == ["ok"])
        for entity in ["Item", "Bucket"] {
            let stored = reader.allRows(entity)
            #expect(stored.count == freshRows.filter { $0.key.entity == entity }.count)
            for (primaryKey, row) in stored where freshRows[.init(entity: entity, primaryKey: primaryKey)]?.values != row.values {
                Issue.record("a fresh fetch of \(entity) \(primaryKey) shows \(String(describing: freshRows[.init(entity: entity, primaryKey: primaryKey)])), the file has \(row)")
            }
        }
        for (index, context) in contexts.enumerated() {
            let rows = try context.performAndWait { try Self.rowsByKey(in: context) }
            #expect(rows.count == freshRows.count, "context \(index) sees \(rows.count) objects, a fresh fetch \(freshRows.count)")
            let disagreements = rows.filter { freshRows[$0.key] != $0.value }.map { key, row in
                "\(key.entity) \(key.primaryKey): \(row) vs fresh \(String(describing: freshRows[key]))"
            }
            // Values and to-many members both: a context that merged another's save while its own to-many change was
            // unsaved once kept its whole member set from before the merge (MergeToManyTests).
            #expect(disagreements.isEmpty, "context \(index) disagrees with a fresh fetch after merging:\n\(disagreements.prefix(10).joined(separator: "\n"))")
        }
    }

    struct ObjectKey: Hashable {
        var entity: String
        var primaryKey: Int64
    }

    struct MergedObject: Equatable {
        var values: StressRow
        /// A bucket's items, by primary key (the to-many side of the items' `bucket`).
        var members: Set<Int64>
    }

    /// Every item and bucket the context shows (fetched, so objects it never saw are included).
    private static func rowsByKey(in context: NSManagedObjectContext) throws -> [ObjectKey: MergedObject] {
        var rows: [ObjectKey: MergedObject] = [:]
        for entity in ["Item", "Bucket"] {
            for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)) {
                let items = entity == "Bucket" ? object.value(forKey: "items") as? Set<NSManagedObject> : nil
                let members = Set((items ?? []).compactMap(\.objectID.primaryKey))
                rows[ObjectKey(entity: entity, primaryKey: object.objectID.primaryKey ?? -1)] = MergedObject(values: object.stressCurrent, members: members)
            }
        }
        return rows
    }

    /// Under the error policy every committed version of a row was written by a writer that had read the version
    /// before it: each row's commits form one chain from the seeded stamp to the stamp in the file. Two commits
    /// from the same read version would be a lost update.
    private func checkNoUpdateWasLost(_ run: StressRun, reports: [StressReport]) {
        let reader = StressRawReader(path: run.url.path)
        let commits = Dictionary(grouping: reports.flatMap(\.commits)) { ObjectKey(entity: $0.entity, primaryKey: $0.primaryKey) }
        for (key, objectCommits) in commits {
            let next = Dictionary(objectCommits.map { ($0.readStamp, [$0.newStamp]) }, uniquingKeysWith: +)
            for (read, written) in next where written.count > 1 {
                Issue.record("\(key.entity) \(key.primaryKey): \(written.count) commits were made from the version with stamp \(read) — lost updates")
            }
            // Follow the chain from the one stamp nobody wrote (the seed).
            let writtenStamps = Set(objectCommits.map(\.newStamp))
            let roots = Set(objectCommits.map(\.readStamp)).subtracting(writtenStamps)
            guard roots.count == 1, var stamp = roots.first else {
                Issue.record("\(key.entity) \(key.primaryKey): the commits do not form one chain (roots \(roots))")
                continue
            }
            var length = 0
            while let following = next[stamp]?.first, length <= objectCommits.count {
                stamp = following
                length += 1
            }
            #expect(length == objectCommits.count, "\(key.entity) \(key.primaryKey): chain of \(length) of \(objectCommits.count) commits")
            #expect(reader.row(key.entity, key.primaryKey)?.values["stamp"] == .integer(stamp),
                    "\(key.entity) \(key.primaryKey): the file does not hold the last commit")
        }
    }
}
