import Foundation
import Testing

@testable import OpenCoreData

// How a save resolves conflicts over relationships and deletions (DEVIATIONS.md O19), and what it writes for them,
// on the concurrency stress suite's model (StressModel: an item's bucket nullify, a bucket's queue cascade, an item's
// tags no action, a tag's items deny). Each test is a difference the stress oracle found, reduced to its steps: `mine`
// read the objects before `theirs` saved, and does not merge.

@Suite("MergeResolutionGraph")
struct MergeResolutionGraphTests {
    private struct Fixture {
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
}
