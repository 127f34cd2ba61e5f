import Foundation
import OpenCoreData
import Testing

/// Parent and child contexts as Apple documents them: "When you save changes in a context, the changes are only
/// committed one store up. If you save a child context, changes are pushed to its parent. Changes are not saved
/// to the persistent store until the root context is saved." A child's fetches and faults see its parent's
/// unsaved state.
@Suite("Parent and child contexts")
struct ParentChildContextTests {
    /// A root context on an in-memory store holding shelf A with item pen.
    static func root() throws -> (NSManagedObjectContext, shelf: NSManagedObjectID, pen: NSManagedObjectID) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLiteFetchCompilerTests.model())
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let root = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        root.persistentStoreCoordinator = coordinator
        let ids = try root.performAndWait {
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: root)
            shelf.setValue("A", forKey: "name")
            let pen = NSEntityDescription.insertNewObject(forEntityName: "Item", into: root)
            pen.setValue("pen", forKey: "name")
            pen.setValue(1.5, forKey: "price")
            pen.setValue(shelf, forKey: "shelf")
            try root.save()
            return (shelf.objectID, pen.objectID)
        }
        return (root, ids.0, ids.1)
    }

    static func child(of parent: NSManagedObjectContext) -> NSManagedObjectContext {
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        return child
    }

    /// The item names the store holds (read by a fresh root context).
    static func storedNames(_ root: NSManagedObjectContext) throws -> [String] {
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = root.persistentStoreCoordinator
        return try fresh.performAndWait {
            try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
    }

    @Test("a child's save goes to its parent; the store changes when the parent saves")
    func saveGoesOneLevelUp() throws {
        let (root, shelfID, penID) = try Self.root()
        let child = Self.child(of: root)
        try child.performAndWait {
            let pen = try child.existingObject(with: penID)
            pen.setValue(2.0, forKey: "price")
            let cup = NSEntityDescription.insertNewObject(forEntityName: "Item", into: child)
            cup.setValue("cup", forKey: "name")
            cup.setValue(try child.existingObject(with: shelfID), forKey: "shelf")
            try child.save()
            #expect(!child.hasChanges)
            #expect(cup.objectID.isTemporaryID, "a child save does not make IDs permanent")
        }
        #expect(try Self.storedNames(root) == ["pen"], "not in the store yet")
        try root.performAndWait {
            #expect(root.hasChanges)
            #expect(root.insertedObjects.count == 1)
            let pen = try root.existingObject(with: penID)
            #expect(pen.value(forKey: "price") as? Double == 2.0)
            #expect(root.updatedObjects.contains(pen))
            let shelf = try root.existingObject(with: shelfID)
            #expect(((shelf.value(forKey: "items") as? NSSet)?.count) == 2, "inverse relationships arrive too")
            try root.save()
        }
        #expect(try Self.storedNames(root) == ["cup", "pen"])
    }

    @Test("a child sees its parent's unsaved inserts, changes and deletions in fetches and faults")
    func childSeesParentsUnsavedState() throws {
        let (root, shelfID, penID) = try Self.root()
        let ink = try root.performAndWait {
            let ink = NSEntityDescription.insertNewObject(forEntityName: "Item", into: root)
            ink.setValue("ink", forKey: "name")
            ink.setValue(try root.existingObject(with: shelfID), forKey: "shelf")
            try root.existingObject(with: penID).setValue(9.0, forKey: "price")
            return ink.objectID
        }
        let child = Self.child(of: root)
        try child.performAndWait {
            let items = try child.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            #expect(Set(items.compactMap { $0.value(forKey: "name") as? String }) == ["pen", "ink"])
            let expensive = NSFetchRequest<NSManagedObject>(entityName: "Item")
            expensive.predicate = NSPredicate(format: "price > 5")
            #expect(try child.fetch(expensive).compactMap { $0.value(forKey: "name") as? String } == ["pen"])
            #expect(try child.existingObject(with: ink).value(forKey: "name") as? String == "ink", "a temporary ID of the parent works")
            let shelf = try child.existingObject(with: shelfID)
            #expect(((shelf.value(forKey: "items") as? NSSet)?.count) == 2)
        }
        try root.performAndWait { root.delete(try root.existingObject(with: penID)) }
        try child.performAndWait {
            child.reset()
            let count = try child.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))
            #expect(count == 1, "deleted in the parent")
        }
    }

    @Test("deletions, rollback and a grandchild chain")
    func deletionsRollbackAndGrandchildren() throws {
        let (root, _, penID) = try Self.root()
        let child = Self.child(of: root)
        let grandchild = Self.child(of: child)
        try grandchild.performAndWait {
            try grandchild.existingObject(with: penID).setValue("PEN", forKey: "name")
            try grandchild.save()
        }
        child.performAndWait {
            #expect(child.hasChanges)
            child.rollback()
            #expect(!child.hasChanges)
        }
        root.performAndWait { #expect(!root.hasChanges) }
        try grandchild.performAndWait {
            let pen = try grandchild.existingObject(with: penID)
            grandchild.refresh(pen, mergeChanges: false)
            #expect(pen.value(forKey: "name") as? String == "pen", "the parent's rollback is what the grandchild reads")
            grandchild.delete(pen)
            try grandchild.save()
        }
        try child.performAndWait { try child.save() }
        try root.performAndWait {
            #expect(root.deletedObjects.count == 1)
            try root.save()
        }
        #expect(try Self.storedNames(root).isEmpty)
    }

    @Test("objects inserted in a child keep working after the parent saves them; permanent IDs go up the chain")
    func temporaryIDsAcrossGenerations() throws {
        let (root, _, _) = try Self.root()
        let child = Self.child(of: root)
        let cup = try child.performAndWait {
            let cup = NSEntityDescription.insertNewObject(forEntityName: "Item", into: child)
            cup.setValue("cup", forKey: "name")
            try child.save()
            return cup
        }
        try root.performAndWait { try root.save() }
        try child.performAndWait {
            cup.setValue("mug", forKey: "name")   // still under its temporary ID here
            try child.save()
        }
        try root.performAndWait {
            #expect(root.insertedObjects.isEmpty, "the change reached the saved object, not a new one")
            try root.save()
        }
        #expect(try Self.storedNames(root) == ["mug", "pen"])

        let pad = try child.performAndWait {
            let pad = NSEntityDescription.insertNewObject(forEntityName: "Item", into: child)
            pad.setValue("pad", forKey: "name")
            try child.save()
            try child.obtainPermanentIDs(for: [pad])
            #expect(!pad.objectID.isTemporaryID)
            return pad.objectID
        }
        try root.performAndWait {
            #expect(root.registeredObject(for: pad) != nil, "the parent's object moved to the permanent ID")
            try root.save()
        }
        #expect(try Self.storedNames(root) == ["mug", "pad", "pen"])
    }
}
