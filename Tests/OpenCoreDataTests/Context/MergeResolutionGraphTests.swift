import Foundation
import Testing

@testable import OpenCoreData

// How a save resolves conflicts over relationships and deletions (DEVIATIONS.md O19), and what it writes for them,
// on the concurrency stress suite's model (StressModel: an item's bucket nullify, a bucket's queue cascade, an item's
// tags no action, a tag's items deny). Each test is a difference the stress oracle found, reduced to its steps: `mine`
// read the objects before `theirs` saved, and does not merge.

@Suite("MergeResolutionGraph")
struct MergeResolutionGraphTests {
    struct Fixture {
        let url: URL
        let container: NSPersistentContainer
        let ids: [String: NSManagedObjectID]
        let mine: NSManagedObjectContext
        let theirs: NSManagedObjectContext

        /// Buckets x, y, w; tags t1, t2, t3; items i (in w), j; `extra` relates more.
        init(_ extra: (NSManagedObjectContext, [String: NSManagedObject]) -> Void = { _, _ in }) throws {
            url = try TemporaryDirectory.make().appendingPathComponent("Resolution.sqlite")
            container = try StressModel.container(at: url)
            let seed = container.newBackgroundContext()
            ids = try seed.performAndWait {
                var objects: [String: NSManagedObject] = [:]
                for name in ["x", "y", "w"] { objects[name] = NSEntityDescription.insertNewObject(forEntityName: "Bucket", into: seed) }
                for name in ["t1", "t2", "t3"] { objects[name] = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: seed) }
                for name in ["i", "j"] { objects[name] = NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed) }
                objects["i"]!.setValue(objects["w"], forKey: "bucket")
                extra(seed, objects)
                try seed.save()
                return objects.mapValues(\.objectID)
            }
            mine = container.newBackgroundContext()
            theirs = container.newBackgroundContext()
        }

        func object(_ name: String, in context: NSManagedObjectContext) -> NSManagedObject { context.object(with: ids[name]!) }

        func theirSave(_ change: (NSManagedObjectContext) -> Void) throws {
            try theirs.performAndWait {
                change(theirs)
                try theirs.save()
            }
        }

        func file() -> FileState { StressRawReader(path: url.path).fileState() }
        func key(_ name: String) -> Int64 { ids[name]!.primaryKey! }
    }

    @Test func aRelationshipChangeSavesTheOtherSideEvenIfItsListAlreadyAgreed() throws {
        let f = try Fixture()
        f.mine.performAndWait {
            let w = f.object("w", in: f.mine)
            #expect((w.value(forKey: "items") as? NSSet)?.count == 1)   // mine reads w's items: i
            w.setValue("mine", forKey: "name")   // an unsaved change: nothing refreshes w from the store
        }
        try f.theirSave { $0.object(with: f.ids["i"]!).setValue($0.object(with: f.ids["y"]!), forKey: "bucket") }
        f.mine.performAndWait {
            let i = f.object("i", in: f.mine), w = f.object("w", in: f.mine)
            #expect((i.value(forKey: "bucket") as? NSManagedObject)?.objectID == f.ids["y"], "i, a fault, reads the store's move")
            i.setValue(w, forKey: "bucket")   // w's list (read before the move) already lists i
            #expect(f.mine.updatedObjects.contains(w), "w's membership changes with this save: it is saved, and its version checked")
            #expect(f.mine.updatedObjects.contains(f.object("y", in: f.mine)))
        }
        let error = f.mine.performAndWait { expectCocoaError(NSManagedObjectMergeError) { try f.mine.save() } }
        #expect(error != nil, "w moved since mine read it: the error policy refuses the save")
    }

    /// The other direction (stress seed 2048): mine read j queued in x, theirs moved j to y, mine then read x's queue
    /// (empty) and queued j there. j's to-one already named x, but j's row carries the membership: it is saved, and
    /// its version checked. Before, j was left out: the save wrote x's order key into j's row in y's queue, and mine's
    /// x listed j while the store did not.
    @Test(arguments: [StressPolicy.error, .objectTrump])
    func aQueueAddSavesTheMemberEvenIfItsToOneAlreadyAgreed(_ policy: StressPolicy) throws {
        let f = try Fixture { _, objects in objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(objects["j"]!) }
        let j = f.mine.performAndWait {
            f.mine.mergePolicy = policy.policy
            let j = f.object("j", in: f.mine)
            #expect((j.value(forKey: "queuedIn") as? NSManagedObject)?.objectID == f.ids["x"])   // mine reads j: in x
            return j
        }
        defer { withExtendedLifetime(j) {} }
        try f.theirSave { $0.object(with: f.ids["y"]!).mutableOrderedSetValue(forKey: "queue").add($0.object(with: f.ids["j"]!)) }
        let result: Result<Void, Error> = f.mine.performAndWait {
            let x = f.object("x", in: f.mine)
            #expect(Self.realize(x, "queue") == 0, "x's queue, read after theirs' save, is empty")
            x.mutableOrderedSetValue(forKey: "queue").add(j)
            #expect(f.mine.updatedObjects.contains(j), "j's row carries its place in x's queue")
            return Result { try f.mine.save() }
        }
        if policy == .error {
            #expect(throws: (any Error).self, "j moved since mine read it") { try result.get() }
            #expect(f.file().queue(of: f.key("y")) == [f.key("j")], "nothing written")
            #expect(f.file().queue(of: f.key("x")).isEmpty)
        } else {
            try result.get()
            #expect(f.file().queue(of: f.key("x")) == [f.key("j")], "mine's queueing wins")
            #expect(f.file().queue(of: f.key("y")).isEmpty)
        }
    }

    /// Stress seed 5093 (a deletion denied, then given up): mine deleted t1, theirs renamed it, mine merged theirs'
    /// save, then `rollback()` undid mine's deletion. t1 shows theirs' name: the merge is the newest read of its row.
    /// Before, the merge skipped the deleted object and rollback put back the values mine had read before it.
    @Test func rollingBackADeletionAfterAMergeShowsTheMergedRow() throws {
        let f = try Fixture()
        let t1 = f.mine.performAndWait {
            let t1 = f.object("t1", in: f.mine)
            #expect(t1.value(forKey: "name") == nil)
            f.mine.delete(t1)
            return t1
        }
        try f.theirSave { $0.object(with: f.ids["t1"]!).setValue("theirs", forKey: "name") }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: [f.ids["t1"]!]], into: [f.mine])
        f.mine.performAndWait {
            #expect(t1.isDeleted, "the merge leaves mine's deletion pending")
            f.mine.rollback()
            #expect(!t1.isDeleted)
            #expect(t1.value(forKey: "name") as? String == "theirs")
        }
    }

    @Test func overwriteKeepsAPairAddedElsewhere() throws {
        let f = try Fixture { _, objects in objects["i"]!.mutableSetValue(forKey: "tags").add(objects["t1"]!) }
        f.mine.performAndWait {
            f.mine.mergePolicy = NSOverwriteMergePolicy
            #expect((f.object("i", in: f.mine).value(forKey: "tags") as? NSSet)?.count == 1)
        }
        try f.theirSave { $0.object(with: f.ids["i"]!).mutableSetValue(forKey: "tags").add($0.object(with: f.ids["t2"]!)) }
        try f.mine.performAndWait {
            f.object("i", in: f.mine).mutableSetValue(forKey: "tags").add(f.object("t3", in: f.mine))
            try f.mine.save()
        }
        #expect(f.file().tags(of: f.key("i")) == [f.key("t1"), f.key("t2"), f.key("t3")], "t2, added elsewhere, is not a pair mine changed")
    }

    @Test func noJoinRowIsWrittenForARowThatIsGone() throws {
        let f = try Fixture { _, objects in objects["t1"]!.mutableSetValue(forKey: "items").add(objects["j"]!) }
        f.mine.performAndWait { #expect((f.object("t1", in: f.mine).value(forKey: "items") as? NSSet)?.count == 1) }
        // Item.tags is no action: deleting j leaves t1's version as it was (the join row goes with j's row).
        try f.theirSave { $0.delete($0.object(with: f.ids["j"]!)) }
        try f.mine.performAndWait {
            f.object("t1", in: f.mine).mutableSetValue(forKey: "items").add(f.object("i", in: f.mine))
            try f.mine.save()
        }
        #expect(f.file().pairs == [TagPair(item: f.key("i"), tag: f.key("t1"))], "no join row names j, which is gone")
    }

    @Test func rollbackWritesAnOwnerWhoseMembersChangeWithTheSave() throws {
        let f = try Fixture()
        f.mine.performAndWait {
            f.mine.mergePolicy = NSRollbackMergePolicy
            f.object("i", in: f.mine).setValue(f.object("y", in: f.mine), forKey: "bucket")
        }
        try f.theirSave { $0.object(with: f.ids["y"]!).setValue("renamed", forKey: "name") }
        let before = try #require(f.file().row("Bucket", f.key("y"))?.version)
        try f.mine.performAndWait { try f.mine.save() }
        let after = try #require(f.file().row("Bucket", f.key("y")))
        #expect(after.values["name"] == .text("renamed"), "y's own change is rolled back")
        #expect(after.version == before + 1, "y gains i with this save: its version moves")
        #expect(f.file().row("Item", f.key("i"))?.values["bucket"] == .integer(f.key("y")))
    }

    @Test func aToOneTheContextWinsSavesTheOwnerTheStoreHadItIn() throws {
        let f = try Fixture()
        f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            f.object("i", in: f.mine).setValue(f.object("x", in: f.mine), forKey: "bucket")
        }
        try f.theirSave { $0.object(with: f.ids["i"]!).setValue($0.object(with: f.ids["y"]!), forKey: "bucket") }
        let before = try #require(f.file().row("Bucket", f.key("y"))?.version)
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().row("Item", f.key("i"))?.values["bucket"] == .integer(f.key("x")), "object trump: mine's move stands")
        #expect(f.file().row("Bucket", f.key("y"))?.version == before + 1, "y loses i with this save: its version moves")
    }

    @Test func storeTrumpMovesTheObjectBackWithoutChangingTheLists() throws {
        let f = try Fixture()
        let lists = f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
            let x = f.object("x", in: f.mine), y = f.object("y", in: f.mine)
            _ = (x.value(forKey: "items") as? NSSet)?.count; _ = (y.value(forKey: "items") as? NSSet)?.count
            f.object("i", in: f.mine).setValue(x, forKey: "bucket")
            return [x, y]
        }
        defer { withExtendedLifetime(lists) {} }
        try f.theirSave { $0.object(with: f.ids["i"]!).setValue($0.object(with: f.ids["y"]!), forKey: "bucket") }
        try f.mine.performAndWait {
            try f.mine.save()
            #expect((lists[0].value(forKey: "items") as? NSSet)?.count == 0, "x does not list i")
            #expect((lists[1].value(forKey: "items") as? NSSet)?.count == 1, "y does, as the store has it")
            #expect((f.object("i", in: f.mine).value(forKey: "bucket") as? NSManagedObject) === lists[1])
        }
        #expect(f.file().row("Item", f.key("i"))?.values["bucket"] == .integer(f.key("y")))
    }

    @Test func aDeletionAppliesItsRuleToAMemberItsListLeftOut() throws {
        let f = try Fixture()
        try f.mine.performAndWait {
            let i = f.object("i", in: f.mine), w = f.object("w", in: f.mine)
            i.setValue(f.object("x", in: f.mine), forKey: "bucket")   // w's list, read now, leaves i out
            f.mine.refresh(i, mergeChanges: false)                   // i's move is dropped; w's list still leaves it out
            f.mine.delete(w)
            try f.mine.save()
        }
        let file = f.file()
        #expect(file.row("Bucket", f.key("w")) == nil)
        #expect(file.row("Item", f.key("i"))?.values["bucket"] == .null, "w's nullify rule reached i, which the store had in w")
    }

    @Test(arguments: [StressPolicy.objectTrump, .storeTrump, .overwrite])
    func aDeletionInConflictAppliesItsRulesToTheStoresRelationships(_ policy: StressPolicy) throws {
        let f = try Fixture()
        f.mine.performAndWait {
            f.mine.mergePolicy = policy.policy
            #expect((f.object("x", in: f.mine).value(forKey: "items") as? NSSet)?.count == 0)
        }
        try f.theirSave { theirs in
            theirs.object(with: f.ids["j"]!).setValue(theirs.object(with: f.ids["x"]!), forKey: "bucket")
            theirs.object(with: f.ids["j"]!).setValue(theirs.object(with: f.ids["x"]!), forKey: "queuedIn")
            theirs.object(with: f.ids["i"]!).setValue(theirs.object(with: f.ids["x"]!), forKey: "queuedIn")
        }
        try f.mine.performAndWait {
            f.mine.delete(f.object("x", in: f.mine))
            try f.mine.save()
        }
        let file = f.file()
        #expect(file.row("Bucket", f.key("x")) == nil)
        #expect(file.row("Item", f.key("i")) == nil && file.row("Item", f.key("j")) == nil, "x's queue cascades to the items the store had in it")
    }

    @Test func aDeletionInConflictThatTheDenyRuleRefusesFailsTheSave() throws {
        let f = try Fixture()
        f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            #expect((f.object("t1", in: f.mine).value(forKey: "items") as? NSSet)?.count == 0)
        }
        try f.theirSave { $0.object(with: f.ids["t1"]!).mutableSetValue(forKey: "items").add($0.object(with: f.ids["i"]!)) }
        let error = f.mine.performAndWait {
            f.mine.delete(f.object("t1", in: f.mine))
            return expectCocoaError(NSValidationRelationshipDeniedDeleteError) { try f.mine.save() }
        }
        #expect(error != nil, "the store relates i to t1: its deny rule refuses the deletion")
        #expect(f.file().row("Tag", f.key("t1")) != nil)
    }

    @Test func rollbackBringsBackADeletedObjectWhoseRowChanged() throws {
        let f = try Fixture()
        f.mine.performAndWait {
            f.mine.mergePolicy = NSRollbackMergePolicy
            f.mine.delete(f.object("i", in: f.mine))
            f.mine.processPendingChanges()
        }
        try f.theirSave { $0.object(with: f.ids["i"]!).setValue("kept", forKey: "title") }
        try f.mine.performAndWait {
            try f.mine.save()
            let i = f.object("i", in: f.mine)
            #expect(!i.isDeleted && i.value(forKey: "title") as? String == "kept")
            #expect((f.object("w", in: f.mine).value(forKey: "items") as? NSSet)?.count == 1, "w lists i again")
        }
        #expect(f.file().row("Item", f.key("i"))?.values["title"] == .text("kept"))
    }

    // MARK: Found with the deletions and many-to-many edits in the stress suite

    /// A bucket's queue as the context shows it, in order.
    static func queue(_ bucket: NSManagedObject) throws -> [NSManagedObject] {
        try #require((bucket.value(forKey: "queue") as? NSOrderedSet)?.array as? [NSManagedObject])
    }

    static func realize(_ object: NSManagedObject, _ key: String) -> Int {
        (object.value(forKey: key) as? NSSet)?.count ?? (object.value(forKey: key) as? NSOrderedSet)?.count ?? -1
    }

    @Test(arguments: [StressPolicy.storeTrump, .objectTrump, .overwrite])
    func aPairAddedElsewhereStaysWhenMineChangedBothItsSides(_ policy: StressPolicy) throws {
        let f = try Fixture()
        f.mine.performAndWait {
            f.mine.mergePolicy = policy.policy
            #expect(Self.realize(f.object("i", in: f.mine), "tags") == 0 && Self.realize(f.object("t1", in: f.mine), "items") == 0)
        }
        try f.theirSave { $0.object(with: f.ids["i"]!).mutableSetValue(forKey: "tags").add($0.object(with: f.ids["t1"]!)) }
        try f.mine.performAndWait {
            // Both sides of the pair conflict and have changes of their own, neither about the pair.
            f.object("i", in: f.mine).mutableSetValue(forKey: "tags").add(f.object("t2", in: f.mine))
            f.object("t1", in: f.mine).mutableSetValue(forKey: "items").add(f.object("j", in: f.mine))
            try f.mine.save()
        }
        #expect(f.file().pairs == [TagPair(item: f.key("i"), tag: f.key("t1")), TagPair(item: f.key("i"), tag: f.key("t2")), TagPair(item: f.key("j"), tag: f.key("t1"))],
                "the pair theirs added is no pair mine changed: it stays, whichever side is resolved first")
    }

    @Test(arguments: [StressPolicy.storeTrump, .objectTrump, .overwrite])
    func aPairRemovedElsewhereStaysRemovedWhenMineChangedBothItsSides(_ policy: StressPolicy) throws {
        let f = try Fixture { _, objects in objects["i"]!.mutableSetValue(forKey: "tags").add(objects["t1"]!) }
        f.mine.performAndWait {
            f.mine.mergePolicy = policy.policy
            #expect(Self.realize(f.object("i", in: f.mine), "tags") == 1 && Self.realize(f.object("t1", in: f.mine), "items") == 1)
        }
        try f.theirSave { $0.object(with: f.ids["i"]!).mutableSetValue(forKey: "tags").remove($0.object(with: f.ids["t1"]!)) }
        try f.mine.performAndWait {
            f.object("i", in: f.mine).mutableSetValue(forKey: "tags").add(f.object("t2", in: f.mine))
            f.object("t1", in: f.mine).mutableSetValue(forKey: "items").add(f.object("j", in: f.mine))
            try f.mine.save()
        }
        #expect(f.file().pairs == [TagPair(item: f.key("i"), tag: f.key("t2")), TagPair(item: f.key("j"), tag: f.key("t1"))],
                "the pair theirs removed is no pair mine changed: it stays removed, whichever side is resolved first")
    }

    @Test func objectTrumpKeepsMineToOneToARowDeletedElsewhereAsNil() throws {
        let f = try Fixture()
        let x = f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            let x = f.object("x", in: f.mine)
            f.object("j", in: f.mine).setValue(x, forKey: "queuedIn")   // x's queue changes with this save: x is saved too
            return x
        }
        defer { withExtendedLifetime(x) {} }
        try f.theirSave { theirs in
            theirs.object(with: f.ids["j"]!).setValue(theirs.object(with: f.ids["y"]!), forKey: "queuedIn")
            theirs.delete(theirs.object(with: f.ids["x"]!))
        }
        let before = try #require(f.file().row("Bucket", f.key("y"))?.version)
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().row("Item", f.key("j"))?.values["queuedIn"] == .null, "mine changed j's queue: its value wins, and x is gone")
        #expect(f.file().row("Bucket", f.key("y"))?.version == before + 1, "y loses j with this save: its version moves")
    }

    @Test(arguments: [false, true])
    func aDeletionNullifiesAListedMemberWhoseCopyPredatesItsMove(listRead: Bool) throws {
        let f = try Fixture()
        let j = f.mine.performAndWait {
            let j = f.object("j", in: f.mine)
            #expect(j.value(forKey: "bucket") == nil)   // mine's copy of j: in no bucket
            return j
        }
        defer { withExtendedLifetime(j) {} }
        try f.theirSave { $0.object(with: f.ids["j"]!).setValue($0.object(with: f.ids["x"]!), forKey: "bucket") }
        try f.mine.performAndWait {
            let x = f.object("x", in: f.mine)
            _ = x.value(forKey: "name")   // read after the move: x's version is the store's
            if listRead { #expect(Self.realize(x, "items") == 1, "x's list, read from the store, has j") }
            f.mine.delete(x)
            try f.mine.save()
        }
        #expect(f.file().row("Bucket", f.key("x")) == nil)
        #expect(f.file().row("Item", f.key("j"))?.values["bucket"] == .null, "x's nullify rule reached j, which the store had in x")
    }

    @Test func aCascadeWhileResolvingWritesTheStoresRowOfTheOwnerItReaches() throws {
        let f = try Fixture()
        let y = f.mine.performAndWait {
            f.mine.mergePolicy = NSOverwriteMergePolicy
            let y = f.object("y", in: f.mine)
            _ = y.value(forKey: "name")   // mine's copy of y, unchanged
            f.mine.delete(f.object("x", in: f.mine))   // x's queue is empty
            f.mine.processPendingChanges()
            return y
        }
        defer { withExtendedLifetime(y) {} }
        try f.theirSave { theirs in
            let j = theirs.object(with: f.ids["j"]!)
            theirs.object(with: f.ids["y"]!).setValue("theirs", forKey: "name")
            j.setValue(theirs.object(with: f.ids["y"]!), forKey: "bucket")
            j.setValue(theirs.object(with: f.ids["x"]!), forKey: "queuedIn")
        }
        let before = try #require(f.file().row("Bucket", f.key("y"))?.version)
        try f.mine.performAndWait {
            #expect(!y.hasChanges)
            try f.mine.save()   // x conflicts: its queue's cascade reaches j, and j's nullify rule y
        }
        let file = f.file()
        #expect(file.row("Item", f.key("j")) == nil, "x's queue cascades to j")
        #expect(file.row("Bucket", f.key("y"))?.values["name"] == .text("theirs"), "y, which mine had not changed, is written from the store's row, less j")
        #expect(file.row("Bucket", f.key("y"))?.version == before + 1)
    }

    @Test func aDeletionInConflictIsDeniedForAPairAddedElsewhereToAnObjectMineChanged() throws {
        let f = try Fixture()
        f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            #expect(Self.realize(f.object("t1", in: f.mine), "items") == 0 && Self.realize(f.object("i", in: f.mine), "tags") == 0)
        }
        try f.theirSave { $0.object(with: f.ids["t1"]!).mutableSetValue(forKey: "items").add($0.object(with: f.ids["i"]!)) }
        let error = f.mine.performAndWait {
            f.object("i", in: f.mine).mutableSetValue(forKey: "tags").add(f.object("t2", in: f.mine))   // i has changes of its own
            f.mine.delete(f.object("t1", in: f.mine))
            return expectCocoaError(NSValidationRelationshipDeniedDeleteError) { try f.mine.save() }
        }
        #expect(error != nil, "the store relates i to t1 (mine never took it out): t1's deny rule refuses the deletion")
        #expect(f.file().row("Tag", f.key("t1")) != nil)
    }

    @Test func aSavedDeletionLeavesNoCopyPointingAtIt() throws {
        let f = try Fixture()
        let j = f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            return f.object("j", in: f.mine)
        }
        defer { withExtendedLifetime(j) {} }
        try f.theirSave { $0.object(with: f.ids["j"]!).setValue($0.object(with: f.ids["x"]!), forKey: "queuedIn") }
        f.mine.performAndWait {
            #expect((j.value(forKey: "queuedIn") as? NSManagedObject)?.objectID == f.ids["x"], "mine's copy of j, read now: in x's queue")
        }
        try f.theirSave { $0.object(with: f.ids["j"]!).setValue(nil, forKey: "queuedIn") }
        try f.mine.performAndWait {
            let x = f.object("x", in: f.mine)
            _ = x.value(forKey: "name")   // read after j left it
            f.mine.delete(x)
            try f.mine.save()   // x's queue, read from the store, is empty: j's copy is stale
            #expect(j.value(forKey: "queuedIn") == nil, "no object of mine points at x, which is gone")
            j.setValue("mine", forKey: "title")
            try f.mine.save()
        }
        #expect(f.file().row("Item", f.key("j"))?.values["title"] == .text("mine"))
        #expect(f.file().row("Item", f.key("j"))?.values["queuedIn"] == .null)
    }

    @Test func storeTrumpPutsMineInsertionAfterTheStoresOrderWhenBothChangedAQueue() throws {
        let f = try Fixture { _, objects in
            for _ in 0..<3 {
                // Three items in x's queue, found below by their positions.
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: objects["x"]!.managedObjectContext!)
                objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(item)
            }
        }
        let queue: [NSManagedObjectID] = try f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
            let x = f.object("x", in: f.mine)
            let queue = try Self.queue(x)
            x.mutableOrderedSetValue(forKey: "queue").insert(f.object("j", in: f.mine), at: 1)
            queue[1].setValue("mine", forKey: "title")
            return queue.map(\.objectID)
        }
        try f.theirSave { $0.object(with: queue[1]).setValue(nil as NSManagedObject?, forKey: "queuedIn") }
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().queue(of: f.key("x")) == [queue[0], queue[2], f.ids["j"]!].map { $0.primaryKey! },
                "store trump: the store changed x's queue, so its order stands; mine's insertion follows")
    }

    @Test(arguments: [StressPolicy.storeTrump, .objectTrump, .overwrite])
    func aPairOneSideReadBeforeItWasAddedStays(_ policy: StressPolicy) throws {
        let f = try Fixture()
        let t1 = f.mine.performAndWait {
            f.mine.mergePolicy = policy.policy
            let t1 = f.object("t1", in: f.mine)
            #expect(Self.realize(t1, "items") == 0)   // read before theirs pairs i with t1
            return t1
        }
        defer { withExtendedLifetime(t1) {} }
        try f.theirSave { $0.object(with: f.ids["i"]!).mutableSetValue(forKey: "tags").add($0.object(with: f.ids["t1"]!)) }
        let i = f.mine.performAndWait {
            let i = f.object("i", in: f.mine)
            #expect(Self.realize(i, "tags") == 1)   // read after
            return i
        }
        defer { withExtendedLifetime(i) {} }
        try f.theirSave { theirs in
            theirs.object(with: f.ids["i"]!).setValue("theirs", forKey: "title")
            theirs.object(with: f.ids["t1"]!).setValue("theirs", forKey: "name")
        }
        try f.mine.performAndWait {
            i.mutableSetValue(forKey: "tags").add(f.object("t2", in: f.mine))
            t1.mutableSetValue(forKey: "items").add(f.object("j", in: f.mine))
            t1.mutableSetValue(forKey: "items").remove(f.object("j", in: f.mine))
            try f.mine.save()
        }
        #expect(f.file().pairs == [TagPair(item: f.key("i"), tag: f.key("t1")), TagPair(item: f.key("i"), tag: f.key("t2"))],
                "neither side of mine changed the pair the store has")
    }

    @Test func overwriteKeepsTheStoresOrderOfAQueueMineReadAgainForAMemberThatLeft() throws {
        let f = try Fixture { seed, objects in
            for _ in 0..<2 { objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed)) }
        }
        let (x, j, queue): (NSManagedObject, NSManagedObject, [NSManagedObjectID]) = try f.mine.performAndWait {
            f.mine.mergePolicy = NSOverwriteMergePolicy
            let x = f.object("x", in: f.mine), j = f.object("j", in: f.mine)
            let queue = try Self.queue(x).map(\.objectID)
            #expect(j.value(forKey: "queuedIn") == nil)
            return (x, j, queue)
        }
        defer { withExtendedLifetime((x, j)) {} }
        try f.theirSave { theirs in
            let x = theirs.object(with: f.ids["x"]!)
            x.mutableOrderedSetValue(forKey: "queue").exchangeObject(at: 0, withObjectAt: 1)
            x.mutableOrderedSetValue(forKey: "queue").add(theirs.object(with: f.ids["j"]!))
        }
        try f.mine.performAndWait {
            x.setValue("mine", forKey: "name")                      // x conflicts; mine never changed its order
            j.setValue(f.object("y", in: f.mine), forKey: "queuedIn")   // j conflicts too: the store had it in x
            try f.mine.save()
        }
        #expect(f.file().queue(of: f.key("x")) == [queue[1], queue[0]].map { $0.primaryKey! }, "x's order is the store's, less j")
        #expect(f.file().queue(of: f.key("y")) == [f.key("j")])
    }

    @Test func storeTrumpPutsAMemberMovedInFromAnotherQueueAfterTheStoresOrder() throws {
        let f = try Fixture { seed, objects in
            for _ in 0..<3 { objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed)) }
            objects["y"]!.mutableOrderedSetValue(forKey: "queue").add(objects["j"]!)
            objects["y"]!.mutableOrderedSetValue(forKey: "queue").add(NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed))
        }
        let (x, y, xQueue, yQueue): (NSManagedObject, NSManagedObject, [NSManagedObject], [NSManagedObject]) = try f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
            let x = f.object("x", in: f.mine), y = f.object("y", in: f.mine)
            return (x, y, try Self.queue(x),
                    try Self.queue(y))
        }
        defer { withExtendedLifetime((x, y, xQueue, yQueue)) {} }
        try f.theirSave { theirs in
            theirs.object(with: xQueue[1].objectID).setValue(nil as NSManagedObject?, forKey: "queuedIn")
            theirs.object(with: yQueue[1].objectID).setValue(nil as NSManagedObject?, forKey: "queuedIn")
        }
        try f.mine.performAndWait {
            xQueue[1].setValue("mine", forKey: "title")
            x.mutableOrderedSetValue(forKey: "queue").insert(yQueue[0], at: 2)   // j, from y's queue, before x's last
            try f.mine.save()
        }
        #expect(f.file().queue(of: f.key("x")) == [xQueue[0], xQueue[2], yQueue[0]].map { $0.objectID.primaryKey! },
                "store trump: the store changed x's queue, so its order stands; j follows")
        #expect(f.file().queue(of: f.key("y")).isEmpty)
    }

    @Test(arguments: [StressPolicy.storeTrump, .objectTrump, .overwrite])
    func aToOneTakingTheStoresValueGetsTheRuleOfADestinationTheSaveDeletes(_ policy: StressPolicy) throws {
        let f = try Fixture()
        let j = f.mine.performAndWait {
            f.mine.mergePolicy = policy.policy
            let j = f.object("j", in: f.mine)
            #expect(j.value(forKey: "bucket") == nil && j.value(forKey: "queuedIn") == nil)   // mine's copy: in no bucket
            return j
        }
        defer { withExtendedLifetime(j) {} }
        try f.theirSave { $0.object(with: f.ids["j"]!).setValue($0.object(with: f.ids["x"]!), forKey: "bucket") }
        try f.mine.performAndWait {
            j.setValue("mine", forKey: "title")   // a change of its own: the deletion below leaves mine's copy as it is
            let x = f.object("x", in: f.mine)
            #expect(Self.realize(x, "items") == 1)
            f.mine.delete(x)
            try f.mine.save()   // j conflicts; its bucket, which mine did not change, is the store's: x, deleted here
        }
        let row = f.file().row("Item", f.key("j"))
        #expect(f.file().row("Bucket", f.key("x")) == nil)
        #expect(row?.values["bucket"] == .null, "x's nullify rule applies to j, which points at it with the store's value")
        #expect(row?.values["title"] == .text("mine"))
    }

    @Test func aDeletionNullifiesAListedFaultWhoseCachedRowPredatesItsMove() throws {
        let f = try Fixture()
        f.mine.performAndWait {
            let j = f.object("j", in: f.mine)
            #expect(j.value(forKey: "bucket") == nil)   // mine's coordinator caches j's row: in no bucket
            f.mine.refresh(j, mergeChanges: false)       // j is a fault again; the cached row stays
        }
        // Another coordinator (another process, say) moves j into x: mine's cache is not told.
        let other = try StressModel.container(at: f.url).newBackgroundContext()
        try other.performAndWait {
            other.object(with: f.ids["j"]!).setValue(other.object(with: f.ids["x"]!), forKey: "bucket")
            try other.save()
        }
        try f.mine.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Bucket")
            request.predicate = NSPredicate(format: "SELF == %@", f.object("x", in: f.mine))
            let x = try #require(try f.mine.fetch(request).first)   // a fetch reads x's row after the move
            f.mine.delete(x)
            try f.mine.save()
        }
        #expect(f.file().row("Bucket", f.key("x")) == nil)
        #expect(f.file().row("Item", f.key("j"))?.values["bucket"] == .null, "x's nullify rule reached j, read from the store rather than the cache")
    }
}
