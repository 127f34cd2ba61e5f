// A randomized test of the object graph as several contexts see it (item 1 of the correctness issue): four contexts
// on one SQLite store — one merging others' saves automatically, two merging them when handed the did-save
// notification, late, and a child of one of those — make random changes of four relationships (one-to-many
// unordered and ordered, many-to-many unordered and ordered on one side): moves from either side, inserts at an
// index, exchanges, whole-set and whole-list replacements, value edits, inserts, deletes, undo and redo, saves (a
// child's into its parent; a context's before it merged what others saved, which must fail exactly on the objects
// saved meanwhile and succeed after merging), rollback, reset, refreshes with and without merging, and reads that
// fire faults at random moments. The reference (MultiContextGraphModel.swift) predicts every context's view of every
// relationship, both sides, in order: the base it last caught up with and its own unsaved changes on top. After each
// step the acting context, and at random others, are compared with it; after each save to the store, a new context
// (every tenth time on a new coordinator) must read the saved graph. A fetched results controller on context 0
// (members in sections by owner) must keep its invariants after every step: its reports, applied to its previous
// sections with UIKit's rules, give its new sections, and those are a fresh fetch (MultiContextGraphFetchedResults.swift).
//
// Environment: `OPENCOREDATA_MULTICONTEXT_OPERATIONS` (total steps, default 1,500, split over the seeds),
// `OPENCOREDATA_MULTICONTEXT_SEED` (run only this seed). Each run prints its seed and operation counts; a failure
// names the seed and step, lists the last operations and says how to rerun it.
import Foundation
import Testing

@testable import OpenCoreData

@Suite("MultiContextGraph")
struct MultiContextGraphTests {
    static let environment = ProcessInfo.processInfo.environment
    static let totalOperations = environment["OPENCOREDATA_MULTICONTEXT_OPERATIONS"].flatMap { Int($0) } ?? 1_500
    static let seeds: [UInt64] = environment["OPENCOREDATA_MULTICONTEXT_SEED"].flatMap { UInt64($0) }.map { [$0] } ?? [1, 2, 3]

    @Test(arguments: seeds)
    func randomChangesInSeveralContextsMatchTheReference(seed: UInt64) throws {
        let operations = max(1, Self.totalOperations / Self.seeds.count)
        let run = try MultiContextGraphRun(seed: seed)
        let start = ContinuousClock.now
        run.run(operations: operations)
        print("MultiContextGraph seed \(seed): \(operations) steps in \(ContinuousClock.now - start); \(run.summary)")
        if let failure = run.failure {
            Issue.record(Comment(rawValue: failure))
            return
        }
        if operations >= 500 {
            for operation in MCOperation.allCases where run.counts[operation.rawValue, default: 0] == 0 {
                Issue.record("seed \(seed): no \(operation.rawValue) operation was run")
            }
        }
    }
}
