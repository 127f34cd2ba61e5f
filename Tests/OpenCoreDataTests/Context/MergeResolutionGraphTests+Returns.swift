import Foundation
import Testing

@testable import OpenCoreData

// More of MergeResolutionGraphTests (same fixture): the stress oracle's differences found after the ordered-queue
// edits, bucket and tag deletions and tag pairs were added back — the order of queues members return to, owners
// written because members move (also after a merge kept a move), and deny rules checked after cascades.

extension MergeResolutionGraphTests {
    @Test(arguments: [false, true])
    func storeTrumpKeepsTheStoresOrderWhenMineExchangedAndTheStoreTookOutAMemberMineChanged(deleted: Bool) throws {
        let f = try Fixture { seed, objects in
            for _ in 0..<4 { objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed)) }
        }
        let queue: [NSManagedObjectID] = try f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
            let x = f.object("x", in: f.mine)
            let queue = try Self.queue(x)
            x.mutableOrderedSetValue(forKey: "queue").exchangeObject(at: 2, withObjectAt: 3)
            queue[0].setValue("mine", forKey: "title")
            return queue.map(\.objectID)
        }
        try f.theirSave { theirs in
            let first = theirs.object(with: queue[0])
            if deleted { theirs.delete(first) } else { first.setValue(nil as NSManagedObject?, forKey: "queuedIn") }
        }
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().queue(of: f.key("x")) == queue.dropFirst().map { $0.primaryKey! },
                "store trump: the store changed x's queue (it took the first out\(deleted ? " by deleting it" : "")), so its order stands")
    }

    @Test func rollbackWritesAQueueOwnerInConflictThatGainsANewItem() throws {
        let f = try Fixture { seed, objects in
            for _ in 0..<3 { objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed)) }
        }
        let queue: [NSManagedObjectID] = try f.mine.performAndWait {
            f.mine.mergePolicy = NSRollbackMergePolicy
            let x = f.object("x", in: f.mine)
            let queue = try Self.queue(x)
            x.mutableOrderedSetValue(forKey: "queue").exchangeObject(at: 1, withObjectAt: 2)
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: f.mine).setValue(x, forKey: "bucket")
            return queue.map(\.objectID)
        }
        try f.theirSave { $0.object(with: queue[0]).setValue(nil as NSManagedObject?, forKey: "queuedIn") }
        let before = try #require(f.file().row("Bucket", f.key("x"))?.version)
        try f.mine.performAndWait { try f.mine.save() }
        let file = f.file()
        #expect(file.queue(of: f.key("x")) == queue.dropFirst().map { $0.primaryKey! }, "rollback: the store's order")
        #expect(file.items("bucket", of: f.key("x")).count == 1, "the new item is in x")
        #expect(file.row("Bucket", f.key("x"))?.version == before + 1, "x gains the new item with this save: its version moves")
    }

    @Test(arguments: [(false, false), (true, false), (true, true)])
    func rollbackWritesAnOwnerThatLosesADeletedMember(cascade: Bool, cascadingOwnerConflicts: Bool) throws {
        let f = try Fixture { seed, objects in
            objects["y"]!.mutableOrderedSetValue(forKey: "queue").add(objects["i"]!)   // i: in w, queued in y
        }
        f.mine.performAndWait {
            f.mine.mergePolicy = NSRollbackMergePolicy
            if cascade { f.mine.delete(f.object("y", in: f.mine)) } else { f.mine.delete(f.object("i", in: f.mine)) }
            f.mine.processPendingChanges()
        }
        try f.theirSave { theirs in
            theirs.object(with: f.ids["w"]!).setValue("renamed", forKey: "name")
            if cascadingOwnerConflicts { theirs.object(with: f.ids["y"]!).setValue("renamed", forKey: "name") }
        }
        let before = try #require(f.file().row("Bucket", f.key("w"))?.version)
        try f.mine.performAndWait { try f.mine.save() }
        let after = try #require(f.file().row("Bucket", f.key("w")))
        #expect(f.file().row("Item", f.key("i")) == nil, "i is deleted\(cascade ? " by y's cascade" : "")")
        #expect(after.values["name"] == .text("renamed"))
        #expect(after.version == before + 1, "w loses i with this save: its version moves")
    }

    @Test(arguments: [false, true])
    func rollbackWritesAnOwnerThatLosesAMemberMovedAway(throughTheList: Bool) throws {
        let f = try Fixture { _, objects in objects["w"]!.mutableOrderedSetValue(forKey: "queue").add(objects["j"]!) }
        f.mine.performAndWait {
            f.mine.mergePolicy = NSRollbackMergePolicy
            let i = f.object("i", in: f.mine), x = f.object("x", in: f.mine)
            if throughTheList { x.mutableSetValue(forKey: "items").add(i) } else { i.setValue(x, forKey: "bucket") }
            f.object("j", in: f.mine).setValue("mine", forKey: "title")   // j conflicts: theirs takes it out of w's queue
        }
        try f.theirSave { $0.object(with: f.ids["j"]!).setValue(nil as NSManagedObject?, forKey: "queuedIn") }
        let before = try #require(f.file().row("Bucket", f.key("w"))?.version)
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().row("Item", f.key("i"))?.values["bucket"] == .integer(f.key("x")))
        #expect(f.file().row("Bucket", f.key("w"))?.version == before + 1, "w loses i with this save: its version moves")
    }

    @Test func rollbackReturnsMembersToAQueueNotInConflictAfterMineInTheStoresOrder() throws {
        let f = try Fixture { seed, objects in
            for _ in 0..<4 { objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed)) }
        }
        let queue: [NSManagedObjectID] = try f.mine.performAndWait {
            f.mine.mergePolicy = NSRollbackMergePolicy
            let x = f.object("x", in: f.mine)
            let queue = try Self.queue(x)
            queue[1].setValue(f.object("y", in: f.mine), forKey: "queuedIn")   // b moves to y
            f.mine.delete(queue[2])                                            // c goes
            f.mine.processPendingChanges()                                     // (its delete rule takes it out of x)
            x.mutableOrderedSetValue(forKey: "queue").exchangeObject(at: 0, withObjectAt: 1)   // x: d, a
            return queue.map(\.objectID)
        }
        try f.theirSave { theirs in
            // b and c conflict (x does not: its row is as mine read it).
            for id in queue[1...2] { theirs.object(with: id).setValue("theirs", forKey: "title") }
        }
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().queue(of: f.key("x")) == [queue[3], queue[0], queue[1], queue[2]].map { $0.primaryKey! },
                "rollback returns b and c to x: after mine's order, in the store's")
        #expect(f.file().queue(of: f.key("y")).isEmpty)
    }

    @Test func rollbackWritesAnOwnerInConflictThatLosesAMemberFromAListMineNeverRead() throws {
        let f = try Fixture()
        let j = f.mine.performAndWait {
            f.mine.mergePolicy = NSRollbackMergePolicy
            let j = f.object("j", in: f.mine)
            j.setValue(f.object("y", in: f.mine), forKey: "queuedIn")     // mine queues j in y
            return j
        }
        defer { withExtendedLifetime(j) {} }
        try f.theirSave { $0.object(with: f.ids["j"]!).setValue($0.object(with: f.ids["x"]!), forKey: "queuedIn") }
        f.mine.performAndWait {
            f.mine.refresh(j, mergeChanges: true)        // j now reads as queued in x; mine's move to y stands
            f.object("x", in: f.mine).setValue("mine", forKey: "name")
        }
        try f.theirSave { $0.object(with: f.ids["x"]!).setValue("theirs", forKey: "name") }
        let before = try #require(f.file().row("Bucket", f.key("x"))?.version)
        try f.mine.performAndWait { try f.mine.save() }
        let file = f.file()
        #expect(file.row("Item", f.key("j"))?.values["queuedIn"] == .integer(f.key("y")))
        #expect(file.row("Bucket", f.key("x"))?.values["name"] == .text("theirs"), "rollback: x's own change is the store's")
        #expect(file.row("Bucket", f.key("x"))?.version == before + 1, "x loses j with this save: its version moves")
    }

    @Test func rollbackWritesADeletionItUndoesWhoseMembersTheSaveDeletes() throws {
        let f = try Fixture { _, objects in objects["y"]!.mutableOrderedSetValue(forKey: "queue").add(objects["j"]!) }
        f.mine.performAndWait {
            f.mine.mergePolicy = NSRollbackMergePolicy
            f.mine.delete(f.object("y", in: f.mine))   // its queue's cascade deletes j
            f.mine.processPendingChanges()
        }
        try f.theirSave { $0.object(with: f.ids["y"]!).setValue("theirs", forKey: "name") }
        let before = try #require(f.file().row("Bucket", f.key("y"))?.version)
        try f.mine.performAndWait { try f.mine.save() }
        let file = f.file()
        #expect(file.row("Item", f.key("j")) == nil, "j's deletion is not in conflict: it stands")
        #expect(file.row("Bucket", f.key("y"))?.values["name"] == .text("theirs"), "rollback undoes y's deletion")
        #expect(file.row("Bucket", f.key("y"))?.version == before + 1, "y loses j with this save: its version moves")
    }

    @Test func objectTrumpWritesTheStoresOrderOfAnOwnerMineReadBeforeItChanged() throws {
        let f = try Fixture { seed, objects in
            for _ in 0..<3 { objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed)) }
        }
        let (x, queue): (NSManagedObject, [NSManagedObjectID]) = try f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            let x = f.object("x", in: f.mine)
            let queue = try Self.queue(x).map(\.objectID)
            f.object("j", in: f.mine).setValue(f.object("y", in: f.mine), forKey: "queuedIn")   // mine queues j in y
            return (x, queue)
        }
        defer { withExtendedLifetime(x) {} }
        let e: NSManagedObjectID = try f.theirs.performAndWait {
            let x = f.theirs.object(with: f.ids["x"]!), list = x.mutableOrderedSetValue(forKey: "queue")
            list.exchangeObject(at: 1, withObjectAt: 2)
            let e = NSEntityDescription.insertNewObject(forEntityName: "Item", into: f.theirs)
            list.insert(e, at: 0)
            list.add(f.theirs.object(with: f.ids["j"]!))                                        // theirs queues j in x
            try f.theirs.save()
            return e.objectID
        }
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().queue(of: f.key("x")) == [e, queue[0], queue[2], queue[1]].map { $0.primaryKey! },
                "object trump: j leaves x, whose order is the store's (mine read x before it changed)")
        #expect(f.file().queue(of: f.key("y")) == [f.key("j")])
    }

    @Test func rollbackReturnsADeletedMemberAfterMineEvenIfTheListStillHeldIt() throws {
        let f = try Fixture { seed, objects in
            for _ in 0..<3 { objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed)) }
        }
        let queue: [NSManagedObjectID] = try f.mine.performAndWait {
            f.mine.mergePolicy = NSRollbackMergePolicy
            let x = f.object("x", in: f.mine)
            let queue = try Self.queue(x)
            x.mutableOrderedSetValue(forKey: "queue").exchangeObject(at: 1, withObjectAt: 2)   // x: a, c, b
            f.mine.delete(queue[0])                                                          // a goes (not yet out of x)
            return queue.map(\.objectID)
        }
        try f.theirSave { $0.object(with: queue[0]).setValue("theirs", forKey: "title") }   // a conflicts
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().queue(of: f.key("x")) == [queue[2], queue[1], queue[0]].map { $0.primaryKey! },
                "rollback brings a back to x: after mine's order")
    }

    @Test func rollbackReturnsADeletedMemberThatAListReadLaterStillHeldAfterMine() throws {
        let f = try Fixture { seed, objects in
            objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed))
            objects["y"]!.mutableOrderedSetValue(forKey: "queue").add(objects["j"]!)
        }
        let j = f.mine.performAndWait {
            f.mine.mergePolicy = NSRollbackMergePolicy
            let j = f.object("j", in: f.mine)
            #expect((j.value(forKey: "queuedIn") as? NSManagedObject)?.objectID == f.ids["y"])   // read: j in y
            return j
        }
        defer { withExtendedLifetime(j) {} }
        try f.theirSave { $0.object(with: f.ids["j"]!).setValue($0.object(with: f.ids["x"]!), forKey: "queuedIn") }   // j: x, after b
        let (b, n): (NSManagedObjectID, NSManagedObjectID) = try f.mine.performAndWait {
            f.mine.delete(j)
            f.mine.processPendingChanges()
            let x = f.object("x", in: f.mine)
            let queue = try Self.queue(x)   // read now: b, j
            let n = NSEntityDescription.insertNewObject(forEntityName: "Item", into: f.mine)
            x.mutableOrderedSetValue(forKey: "queue").add(n)
            try f.mine.obtainPermanentIDs(for: [n])
            return (queue[0].objectID, n.objectID)
        }
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().row("Item", f.key("j"))?.values["queuedIn"] == .integer(f.key("x")), "rollback undoes j's deletion")
        #expect(f.file().queue(of: f.key("x")) == [b, n, f.ids["j"]!].map { $0.primaryKey! }, "j returns to x after mine's order")
    }

    /// `merged`: x read first, and theirs' save merged by the IDs it updated (x refreshed too); otherwise j alone
    /// is refreshed, x never read.
    @Test(arguments: [false, true])
    func aMergeThatMovesAnObjectMineMovedAwayMakesItsNewOwnerChanged(merged: Bool) throws {
        let f = try Fixture()
        let (j, x) = f.mine.performAndWait {
            let j = f.object("j", in: f.mine), x = f.object("x", in: f.mine)
            if merged { #expect(Self.realize(x, "queue") == 0) }
            j.setValue(f.object("y", in: f.mine), forKey: "queuedIn")     // mine queues j in y
            return (j, x)
        }
        defer { withExtendedLifetime((j, x)) {} }
        try f.theirSave { $0.object(with: f.ids["j"]!).setValue($0.object(with: f.ids["x"]!), forKey: "queuedIn") }
        let before = try #require(f.file().row("Bucket", f.key("x"))?.version)
        if merged {
            // As Apple documents for a save made elsewhere: the objects it updated, by ID.
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: [f.ids["j"]!, f.ids["x"]!]], into: [f.mine])
        }
        try f.mine.performAndWait {
            // j's row: queued in x; mine's change to y stands.
            if !merged { f.mine.refresh(j, mergeChanges: true) }
            #expect((j.value(forKey: "queuedIn") as? NSManagedObject)?.objectID == f.ids["y"])
            #expect(f.mine.updatedObjects.contains(x), "x loses j with mine's next save")
            #expect((x.value(forKey: "queue") as? NSOrderedSet)?.count == 0)
            try f.mine.save()
        }
        #expect(f.file().row("Item", f.key("j"))?.values["queuedIn"] == .integer(f.key("y")))
        #expect(f.file().queue(of: f.key("x")).isEmpty)
        #expect(f.file().row("Bucket", f.key("x"))?.version == before + 1, "x lost j with mine's save: its version moves")
    }

    @Test(arguments: [StressPolicy.storeTrump, .objectTrump, .overwrite])
    func aDenyRuleIgnoresAnObjectAnotherDeletionsCascadeDeletes(_ policy: StressPolicy) throws {
        let f = try Fixture()
        f.mine.performAndWait {
            f.mine.mergePolicy = policy.policy
            #expect(Self.realize(f.object("t1", in: f.mine), "items") == 0)
            #expect(Self.realize(f.object("y", in: f.mine), "queue") == 0)
        }
        try f.theirSave { theirs in
            // j joins y's queue and t1: both rows change after mine read them.
            let j = theirs.object(with: f.ids["j"]!)
            j.setValue(theirs.object(with: f.ids["y"]!), forKey: "queuedIn")
            j.mutableSetValue(forKey: "tags").add(theirs.object(with: f.ids["t1"]!))
        }
        try f.mine.performAndWait {
            f.mine.delete(f.object("y", in: f.mine))    // y's cascade: its queue, as mine read it, is empty
            f.mine.delete(f.object("t1", in: f.mine))   // t1's deny rule: no items, as mine read it
            try f.mine.save()
        }
        let file = f.file()
        #expect(file.row("Bucket", f.key("y")) == nil && file.row("Tag", f.key("t1")) == nil)
        #expect(file.row("Item", f.key("j")) == nil, "y's cascade, applied to the store's queue, deletes j: t1's deny rule no longer sees it")
        #expect(file.pairs.isEmpty)
    }

    @Test(arguments: [StressPolicy.storeTrump, .objectTrump, .overwrite], [0, 1, 2])
    func aDenyRuleIgnoresAPairMineRemovedOnTheSideThatReadIt(_ policy: StressPolicy, variant: Int) throws {
        // variant 1: i conflicts too; 2: t2, which mine pairs i with, conflicts (theirs pairs j with it)
        let itemConflicts = variant == 1
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
            #expect(Self.realize(i, "tags") == 1)     // read after
            i.mutableSetValue(forKey: "tags").remove(t1)
            i.mutableSetValue(forKey: "tags").add(f.object("t2", in: f.mine))
            return i
        }
        defer { withExtendedLifetime(i) {} }
        try f.theirSave { theirs in
            if itemConflicts { theirs.object(with: f.ids["i"]!).setValue("theirs", forKey: "title") }
            if variant == 2 { theirs.object(with: f.ids["j"]!).mutableSetValue(forKey: "tags").add(theirs.object(with: f.ids["t2"]!)) }
            theirs.object(with: f.ids["t1"]!).setValue("theirs", forKey: "name")
        }
        try f.mine.performAndWait {
            f.mine.delete(t1)   // its deny rule: mine took i out of it (on i's side)
            try f.mine.save()
        }
        #expect(f.file().row("Tag", f.key("t1")) == nil)
        #expect(f.file().pairs == Set([TagPair(item: f.key("i"), tag: f.key("t2"))] + (variant == 2 ? [TagPair(item: f.key("j"), tag: f.key("t2"))] : [])))
    }

    @Test func objectTrumpKeepsTheStoresOrderOfAListReadAgainThatAMemberReturnsTo() throws {
        let f = try Fixture { seed, objects in
            for _ in 0..<3 { objects["x"]!.mutableOrderedSetValue(forKey: "queue").add(NSEntityDescription.insertNewObject(forEntityName: "Item", into: seed)) }
        }
        let (x, k, queue): (NSManagedObject, NSManagedObject, [NSManagedObjectID]) = try f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            let x = f.object("x", in: f.mine), k = f.object("i", in: f.mine)
            let queue = try Self.queue(x).map(\.objectID)
            k.setValue("mine", forKey: "title")                                                  // i conflicts; its queue is the store's
            f.object("j", in: f.mine).setValue(f.object("y", in: f.mine), forKey: "queuedIn")   // j conflicts; mine's queue wins
            return (x, k, queue)
        }
        defer { withExtendedLifetime((x, k)) {} }
        try f.theirSave { theirs in
            let list = theirs.object(with: f.ids["x"]!).mutableOrderedSetValue(forKey: "queue")
            list.insert(theirs.object(with: f.ids["i"]!), at: 1)
            list.add(theirs.object(with: f.ids["j"]!))
        }
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().queue(of: f.key("x")) == [queue[0], f.ids["i"]!, queue[1], queue[2]].map { $0.primaryKey! },
                "x, read again for j leaving it, is in the store's order: i where the store has it")
        #expect(f.file().queue(of: f.key("y")) == [f.key("j")])
    }

    @Test(arguments: [StressPolicy.storeTrump, .objectTrump, .overwrite])
    func aDenyRuleRefusesATagDeletionAnItemStillListsThoughTheTagDoesNot(_ policy: StressPolicy) throws {
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
            #expect(Self.realize(i, "tags") == 1)     // read after: i lists t1, t1 does not list i
            return i
        }
        defer { withExtendedLifetime(i) {} }
        try f.theirSave { $0.object(with: f.ids["t1"]!).setValue("theirs", forKey: "name") }   // t1 conflicts
        let code = f.mine.performAndWait { () -> Int? in
            f.mine.delete(t1)
            do {
                try f.mine.save()
                return nil
            } catch {
                return (error as NSError).code
            }
        }
        #expect(code == NSValidationRelationshipDeniedDeleteError, "i still lists t1 here, and the store pairs them: t1's deny rule refuses")
        #expect(f.file().row("Tag", f.key("t1")) != nil)
        #expect(f.file().pairs == [TagPair(item: f.key("i"), tag: f.key("t1"))])
    }
}
