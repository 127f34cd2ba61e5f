import Foundation
import Testing

@testable import OpenCoreData

// More of MergeResolutionGraphTests (same fixture): a many-to-many pair changed through one side whose other side mine
// read at another time, so that the other side's list already agreed with the change. The change must survive a
// merge that refreshes that side (stress seed 117: it was lost there, and a deletion in conflict was then denied).

extension MergeResolutionGraphTests {
    /// `theirs` saves `change`; returns its did-save notification, for `mine` to merge when the test says (as the
    /// stress writers merge each other's saves, some time after them).
    static func theirSaveNotification(_ f: Fixture, _ change: (NSManagedObjectContext) -> Void) throws -> Notification {
        let saved = LockedBox<Notification?>(nil)
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: f.theirs, queue: nil) { note in
            saved.mutate { $0 = note }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try f.theirSave(change)
        return try #require(saved.value)
    }

    static func tagIDs(_ object: NSManagedObject, _ key: String) -> Set<NSManagedObjectID> {
        Set(((object.value(forKey: key) as? NSSet)?.allObjects ?? []).compactMap { ($0 as? NSManagedObject)?.objectID })
    }

    /// Mine read i's tags (none), theirs tagged i with t1, mine then read t1's items (i) and took i out through t1's list:
    /// i's list, read before, already agreed. A merge of theirs' save refreshes i; i must still show mine's removal.
    @Test func aPairRemovedThroughTheOtherSideStaysRemovedWhenAMergeRefreshesThisSide() throws {
        let f = try Fixture()
        f.mine.performAndWait {
            let i = f.object("i", in: f.mine)
            i.setValue("mine", forKey: "title")   // an unsaved change keeps i, and the list it read, registered
            #expect(Self.realize(i, "tags") == 0)
        }
        let note = try Self.theirSaveNotification(f) { $0.object(with: f.ids["i"]!).mutableSetValue(forKey: "tags").add($0.object(with: f.ids["t1"]!)) }
        f.mine.performAndWait {
            let i = f.object("i", in: f.mine), t1 = f.object("t1", in: f.mine)
            #expect(Self.tagIDs(t1, "items") == [f.ids["i"]!], "t1, a fault, reads the store's pair")
            t1.mutableSetValue(forKey: "items").remove(i)
            #expect(Self.tagIDs(i, "tags").isEmpty)
            f.mine.mergeChanges(fromContextDidSave: note)
            #expect(Self.tagIDs(i, "tags").isEmpty, "mine took i out of t1: the merged pair is not shown on i's side either")
            #expect(Self.tagIDs(t1, "items").isEmpty)
            #expect(i.changedValues()["tags"] != nil, "i's tags differ from the store's")
        }
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().tags(of: f.key("i")).isEmpty)
        f.mine.performAndWait { #expect(Self.tagIDs(f.object("i", in: f.mine), "tags").isEmpty) }
    }

    /// The add the same way round: mine read i's tags (t1), theirs untagged it, mine read t1's items (none) and put i in.
    @Test func aPairAddedThroughTheOtherSideStaysAddedWhenAMergeRefreshesThisSide() throws {
        let f = try Fixture { _, objects in objects["i"]!.mutableSetValue(forKey: "tags").add(objects["t1"]!) }
        f.mine.performAndWait {
            let i = f.object("i", in: f.mine)
            i.setValue("mine", forKey: "title")   // an unsaved change keeps i, and the list it read, registered
            #expect(Self.realize(i, "tags") == 1)
        }
        let note = try Self.theirSaveNotification(f) { $0.object(with: f.ids["i"]!).mutableSetValue(forKey: "tags").remove($0.object(with: f.ids["t1"]!)) }
        f.mine.performAndWait {
            let i = f.object("i", in: f.mine), t1 = f.object("t1", in: f.mine)
            #expect(Self.tagIDs(t1, "items").isEmpty, "t1, a fault, reads the store's (no pair)")
            t1.mutableSetValue(forKey: "items").add(i)
            f.mine.mergeChanges(fromContextDidSave: note)
            #expect(Self.tagIDs(i, "tags") == [f.ids["t1"]!], "mine put i in t1: i's side shows it after the merge")
            #expect(Self.tagIDs(t1, "items") == [f.ids["i"]!])
        }
        try f.mine.performAndWait { try f.mine.save() }
        #expect(f.file().tags(of: f.key("i")) == [f.key("t1")])
    }

    /// Stress seed 117, reduced: as above, but mine empties t1 (i and j), then theirs takes j out of t1 too (so mine's
    /// deletion of t1 is in conflict) and mine deletes t1, whose deny rule is then checked against the store's
    /// members. i is one of them, but mine took it out: every policy that keeps mine's deletion deletes t1.
    @Test(arguments: [StressPolicy.storeTrump, .objectTrump, .overwrite])
    func aDeletionInConflictIsAllowedForAPairMineRemovedThroughTheDeletedSide(_ policy: StressPolicy) throws {
        let f = try Fixture { _, objects in objects["j"]!.mutableSetValue(forKey: "tags").add(objects["t1"]!) }
        f.mine.performAndWait {
            f.mine.mergePolicy = policy.policy
            let i = f.object("i", in: f.mine)
            i.setValue("mine", forKey: "title")   // an unsaved change keeps i, and the list it read, registered
            #expect(Self.realize(i, "tags") == 0)
        }
        let note = try Self.theirSaveNotification(f) { $0.object(with: f.ids["i"]!).mutableSetValue(forKey: "tags").add($0.object(with: f.ids["t1"]!)) }
        f.mine.performAndWait {
            let i = f.object("i", in: f.mine), t1 = f.object("t1", in: f.mine)
            #expect(Self.tagIDs(t1, "items") == [f.ids["i"]!, f.ids["j"]!])
            t1.mutableSetValue(forKey: "items").removeAllObjects()   // as the stress's tag deletion does, half the time
            f.mine.mergeChanges(fromContextDidSave: note)
            #expect(Self.tagIDs(i, "tags").isEmpty, "i's side shows mine's removal after the merge")
        }
        try f.theirSave { $0.object(with: f.ids["j"]!).mutableSetValue(forKey: "tags").remove($0.object(with: f.ids["t1"]!)) }
        try f.mine.performAndWait {
            f.mine.delete(f.object("t1", in: f.mine))
            try f.mine.save()
        }
        let file = f.file()
        #expect(file.row("Tag", f.key("t1")) == nil, "mine took i out and theirs j: t1 has no items, its deletion is allowed")
        #expect(file.tags(of: f.key("i")).isEmpty && file.tags(of: f.key("j")).isEmpty)
    }
}

extension MergeResolutionGraphTests {
    /// Stress seed 122, reduced: the reading order the other way round. i's list is the stale one (read before theirs
    /// tagged i with t1), t1's the fresh one. Mine tags i with t1 through i's list (t1's already listed i), then takes
    /// i out again through t1's list: the store's pair goes. Taking the stale side's word for the pair had t1's
    /// committed members lose i, and the removal then wrote nothing.
    @Test func aPairAddedThroughTheStaleSideThenRemovedThroughTheFreshSideLeavesTheStore() throws {
        let f = try Fixture { _, objects in objects["j"]!.mutableSetValue(forKey: "tags").add(objects["t1"]!) }
        f.mine.performAndWait {
            f.mine.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy   // i changed in the store since mine read it
            let i = f.object("i", in: f.mine)
            i.setValue("mine", forKey: "title")   // an unsaved change keeps i, and the list it read, registered
            #expect(Self.realize(i, "tags") == 0)
        }
        try f.theirSave { $0.object(with: f.ids["i"]!).mutableSetValue(forKey: "tags").add($0.object(with: f.ids["t1"]!)) }
        try f.mine.performAndWait {
            let i = f.object("i", in: f.mine), t1 = f.object("t1", in: f.mine)
            #expect(Self.tagIDs(t1, "items") == [f.ids["i"]!, f.ids["j"]!], "t1, a fault, reads the store's pairs")
            i.mutableSetValue(forKey: "tags").add(t1)
            t1.mutableSetValue(forKey: "items").remove(i)
            #expect(Self.tagIDs(i, "tags").isEmpty && Self.tagIDs(t1, "items") == [f.ids["j"]!])
            try f.mine.save()
        }
        #expect(f.file().tags(of: f.key("i")).isEmpty, "mine took i out of t1: the pair the store had is gone")
        #expect(f.file().tags(of: f.key("j")) == [f.key("t1")])
    }
}
