import Foundation
import Testing

@testable import OpenCoreData

// A to-many relationship as a context shows it is the store's (or the parent's) members with this context's unsaved
// changes on top — after a merge, an undo, a child's save, a rollback, a fault fired late. Each test is one of the
// discrepancies the multi-context graph test (MultiContextGraphTests) found, reduced to its steps.

@Suite("ToManyView")
struct ToManyViewTests {
    /// A SQLite store of MultiContextGraphSchema's model with owners and members saved by name, and contexts on it.
    private struct Fixture {
        let coordinator: NSPersistentStoreCoordinator
        private(set) var ids: [String: NSManagedObjectID] = [:]

        /// `build` inserts and relates the objects (named by `"name"`, stored in `value` as its hash is not stable:
        /// the test keeps the IDs) and they are saved.
        init(_ build: (NSManagedObjectContext, (String, MCEntity) -> NSManagedObject) throws -> Void) throws {
            let url = try TemporaryDirectory.make().appendingPathComponent("ToManyView.sqlite")
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: MultiContextGraphSchema.model)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            let seed = context()
            var objects: [String: NSManagedObject] = [:]
            try seed.performAndWait {
                try build(seed) { name, entity in
                    let object = NSEntityDescription.insertNewObject(forEntityName: entity.rawValue, into: seed)
                    objects[name] = object
                    return object
                }
                try seed.save()
            }
            ids = objects.mapValues(\.objectID)
        }

        func context(undo: Bool = false) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.performAndWait {
                context.persistentStoreCoordinator = coordinator
                if undo { context.undoManager = UndoManager() }
            }
            return context
        }

        func object(_ name: String, in context: NSManagedObjectContext) -> NSManagedObject { context.object(with: ids[name]!) }

        /// The names of the objects a relationship holds, in order for an ordered one.
        func names(_ name: String, _ key: String, in context: NSManagedObjectContext) -> [String] {
            let value = object(name, in: context).value(forKey: key)
            let objects = (value as? NSOrderedSet)?.array ?? (value as? NSSet)?.allObjects ?? (value.map { [$0] } ?? [])
            let byID = Dictionary(uniqueKeysWithValues: ids.map { ($0.value, $0.key) })
            let names = objects.compactMap { ($0 as? NSManagedObject).flatMap { byID[$0.objectID] } }
            return value is NSSet ? names.sorted() : names
        }
    }

    @Test func anOrderedInsertThroughAFaultKeepsTheNewMember() throws {
        let f = try Fixture { _, make in
            let owner = make("o", .owner), a = make("a", .member)
            _ = make("b", .member)
            owner.mutableOrderedSetValue(forKey: "playlist").add(a)
        }
        let context = f.context()
        context.performAndWait {
            // The owner is a fault: the insertion must fire it, not realize an empty list that firing then drops.
            f.object("o", in: context).mutableOrderedSetValue(forKey: "playlist").insert(f.object("b", in: context), at: 0)
        }
        context.performAndWait {
            #expect(f.names("o", "playlist", in: context) == ["b", "a"])
            #expect(f.names("b", "playlists", in: context) == ["o"])
        }
    }

    @Test func aRemovalThroughAFaultRemoves() throws {
        let f = try Fixture { _, make in
            make("m", .member).mutableSetValue(forKey: "groups").add(make("o", .owner))
        }
        let context = f.context()
        context.performAndWait { f.object("m", in: context).mutableSetValue(forKey: "groups").remove(f.object("o", in: context)) }
        context.performAndWait {
            #expect(f.names("m", "groups", in: context).isEmpty)
            #expect(f.names("o", "groupMembers", in: context).isEmpty)
            #expect(context.hasChanges)
        }
    }

    @Test func aMergeKeepsThisContextsOrderOfAnOrderedRelationshipItReordered() throws {
        let f = try Fixture { _, make in
            let owner = make("o", .owner)
            owner.setValue(NSOrderedSet(array: ["a", "b", "c"].map { make($0, .member) }), forKey: "entries")
            _ = make("d", .member)
        }
        let mine = f.context(), theirs = f.context()
        mine.performAndWait {
            f.object("o", in: mine).mutableOrderedSetValue(forKey: "entries").exchangeObject(at: 0, withObjectAt: 2)
            #expect(f.names("o", "entries", in: mine) == ["c", "b", "a"])
        }
        let note = try didSaveNotification(of: theirs) { theirs in
            f.object("b", in: theirs).setValue(nil, forKey: "list")
            f.object("d", in: theirs).setValue(f.object("o", in: theirs), forKey: "list")
        }
        mine.performAndWait {
            mine.mergeChanges(fromContextDidSave: note)
            // b left elsewhere, d joined elsewhere (after this context's members); this context's order stays.
            #expect(f.names("o", "entries", in: mine) == ["c", "a", "d"])
            #expect(f.names("b", "list", in: mine).isEmpty)
        }
    }

    @Test func aMergeKeepsAMemberInsertedAtAnIndex() throws {
        let f = try Fixture { _, make in
            make("o", .owner).setValue(NSOrderedSet(array: ["a", "b"].map { make($0, .member) }), forKey: "playlist")
            _ = make("x", .member)
        }
        let mine = f.context(), theirs = f.context()
        mine.performAndWait { f.object("o", in: mine).mutableOrderedSetValue(forKey: "playlist").insert(f.object("x", in: mine), at: 0) }
        let note = try didSaveNotification(of: theirs) { theirs in
            f.object("o", in: theirs).mutableOrderedSetValue(forKey: "playlist").exchangeObject(at: 0, withObjectAt: 1)
        }
        mine.performAndWait {
            mine.mergeChanges(fromContextDidSave: note)
            #expect(f.names("o", "playlist", in: mine) == ["x", "a", "b"], "the list this context changed keeps its order")
        }
    }

    @Test func aListReadAfterTheStoreMovedAMemberInShowsThisContextsMoveOfIt() throws {
        let f = try Fixture { _, make in
            _ = make("o", .owner)
            make("m", .member).setValue(make("x", .owner), forKey: "owner")
            _ = make("p", .owner)
        }
        let mine = f.context(), theirs = f.context()
        mine.performAndWait { f.object("m", in: mine).setValue(f.object("p", in: mine), forKey: "owner") }
        let note = try didSaveNotification(of: theirs) { theirs in
            f.object("m", in: theirs).setValue(f.object("o", in: theirs), forKey: "owner")
        }
        mine.performAndWait {
            mine.mergeChanges(fromContextDidSave: note)
            #expect(f.names("m", "owner", in: mine) == ["p"], "this context's move stays")
            #expect(f.names("o", "members", in: mine).isEmpty, "o, read from the store after the merge, does not list m, which this context moved to p")
            #expect(f.names("p", "members", in: mine) == ["m"])
            mine.rollback()
            #expect(f.names("o", "members", in: mine) == ["m"], "the move is gone: o lists m, as the store does")
        }
    }

    @Test func undoingAMoveKeepsMembersMergedSince() throws {
        let f = try Fixture { _, make in
            let o = make("o", .owner)
            _ = make("p", .owner)
            make("m", .member).setValue(o, forKey: "owner")
            _ = make("k", .member)
        }
        let mine = f.context(undo: true), theirs = f.context()
        try mine.performAndWait {
            #expect(f.names("o", "members", in: mine) == ["m"])
            f.object("m", in: mine).setValue(f.object("p", in: mine), forKey: "owner")
            try mine.save()
        }
        let note = try didSaveNotification(of: theirs) { theirs in
            f.object("k", in: theirs).setValue(f.object("o", in: theirs), forKey: "owner")
        }
        mine.performAndWait { mine.mergeChanges(fromContextDidSave: note) }
        mine.performAndWait { mine.undo() }
        mine.performAndWait {
            #expect(f.names("m", "owner", in: mine) == ["o"])
            #expect(f.names("o", "members", in: mine) == ["k", "m"], "k, moved in elsewhere after the undone move, stays")
            #expect(f.names("p", "members", in: mine).isEmpty)
            mine.redo()
            #expect(f.names("o", "members", in: mine) == ["k"])
            #expect(f.names("p", "members", in: mine) == ["m"])
        }
    }

    @Test func redoingAMoveIntoAListThatWasAFaultWhenUndonePutsTheMemberBack() throws {
        let f = try Fixture { _, make in
            make("m", .member).setValue(make("from", .owner), forKey: "list")
            make("to", .owner).setValue(NSOrderedSet(array: [make("a", .member)]), forKey: "entries")
        }
        let context = f.context(undo: true)
        try context.performAndWait {
            f.object("to", in: context).mutableOrderedSetValue(forKey: "entries").add(f.object("m", in: context))
            try context.save()
        }
        // The list is a fault when the move is undone: the undo reads it while the member's own side is restored.
        context.performAndWait { context.refresh(f.object("to", in: context), mergeChanges: false) }
        context.performAndWait { context.undo() }
        context.performAndWait {
            #expect(f.names("to", "entries", in: context) == ["a"])
            #expect(f.names("m", "list", in: context) == ["from"])
        }
        context.performAndWait { context.redo() }
        context.performAndWait {
            #expect(f.names("to", "entries", in: context) == ["a", "m"])
            #expect(f.names("from", "entries", in: context).isEmpty)
        }
    }

    @Test func aChildsSaveKeepsTheParentsChangesMadeSinceTheChildReadTheRelationship() throws {
        let f = try Fixture { _, make in
            let o = make("o", .owner)
            o.setValue(NSOrderedSet(array: [make("a", .member), make("b", .member)]), forKey: "playlist")
            _ = make("c", .member)
        }
        let parent = f.context()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.performAndWait { child.parent = parent }
        child.performAndWait {
            #expect(f.names("o", "playlist", in: child) == ["a", "b"])
            f.object("o", in: child).mutableOrderedSetValue(forKey: "playlist").add(f.object("c", in: child))
        }
        parent.performAndWait { parent.delete(f.object("a", in: parent)) }
        try child.performAndWait { try child.save() }
        parent.performAndWait {
            #expect(f.names("o", "playlist", in: parent) == ["b", "c"], "a, deleted in the parent, does not come back; c, added in the child, joins")
            #expect(f.object("a", in: parent).isDeleted)
        }
    }

    @Test func aChildRefreshesAnObjectItReadWhileItsParentHadNotSavedItsInsertion() throws {
        let f = try Fixture { _, make in _ = make("o", .owner) }
        let parent = f.context()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.performAndWait {
            child.parent = parent
            child.automaticallyMergesChangesFromParent = true
        }
        let memberID = try parent.performAndWait {
            let member = NSEntityDescription.insertNewObject(forEntityName: "Member", into: parent)
            try parent.obtainPermanentIDs(for: [member])
            return member.objectID
        }
        child.performAndWait { #expect((child.object(with: memberID).value(forKey: "playlists") as? NSSet)?.count == 0) }
        try parent.performAndWait {
            parent.object(with: memberID).mutableSetValue(forKey: "playlists").add(f.object("o", in: parent))
            try parent.save()
        }
        child.performAndWait {}   // its merge of the parent's save
        child.performAndWait {
            #expect((child.object(with: memberID).value(forKey: "playlists") as? NSSet)?.count == 1, "the save lists the member as inserted; the child had read it before")
        }
    }

    @Test func aMergedDeletionDoesNotLeaveAHoldersToOneAsAnUnsavedChange() throws {
        let f = try Fixture { _, make in
            let m = make("m", .member)
            m.setValue(make("gone", .owner), forKey: "owner")
            m.setValue(make("l", .owner), forKey: "list")
            _ = make("o", .owner)
        }
        let mine = f.context(), theirs = f.context()
        mine.performAndWait { f.object("m", in: mine).setValue(nil, forKey: "list") }   // m has an unsaved change
        let note = try didSaveNotification(of: theirs) { theirs in
            theirs.delete(f.object("gone", in: theirs))
            f.object("m", in: theirs).setValue(f.object("o", in: theirs), forKey: "owner")
        }
        mine.performAndWait {
            mine.mergeChanges(fromContextDidSave: note)
            #expect(f.names("m", "owner", in: mine) == ["o"], "the store's new owner, not the nil the deletion left")
            #expect(f.names("m", "list", in: mine).isEmpty)
        }
    }
}
