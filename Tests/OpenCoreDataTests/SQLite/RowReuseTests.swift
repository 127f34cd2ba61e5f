import Foundation
import Testing

@testable import OpenCoreData

/// A fetch from the SQLite store does not decode a row again when the coordinator's row cache holds the same
/// version of it (`Z_OPT`): a changed version is read, entities with derived attributes are always read (Apple's
/// triggers change those columns without advancing `Z_OPT`), and a row changed behind Core Data's back without a
/// new version keeps its cached values until a fault or refresh reads the store again — with `stalenessInterval = 0`,
/// or once the row is older than a positive staleness interval (DEVIATIONS S25).
@Suite struct RowReuseTests {
    /// `Shelf` (name, `itemCount` derived as `items.@count`) —items (to-many)→ `Slot` (name) —shelf (to-one).
    private static let model: NSManagedObjectModel = {
        let shelf = MoodyModelInCode.entity("Shelf"), slot = MoodyModelInCode.entity("Slot")
        let items = MoodyModelInCode.relationship("items", to: slot, toMany: true, optional: true)
        let owner = MoodyModelInCode.relationship("shelf", to: shelf, toMany: false, optional: true)
        items.inverseRelationship = owner
        owner.inverseRelationship = items
        let itemCount = NSDerivedAttributeDescription()
        itemCount.name = "itemCount"
        itemCount.attributeType = .integer64AttributeType
        itemCount.derivationExpression = NSExpression(format: "items.@count")
        itemCount.isOptional = true
        shelf.properties = [MoodyModelInCode.attribute("name", .stringAttributeType, optional: true), itemCount, items]
        slot.properties = [MoodyModelInCode.attribute("name", .stringAttributeType, optional: true), owner]
        let model = NSManagedObjectModel()
        model.entities = [shelf, slot]
        return model
    }()

    private static func coordinator(_ path: String) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path), options: nil)
        return coordinator
    }

    private static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The `key` values of every object of `entityName`, fetched realized in a new context.
    private static func values(_ coordinator: NSPersistentStoreCoordinator, _ entityName: String, _ key: String) throws -> [String] {
        let context = context(coordinator)
        return try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
            request.returnsObjectsAsFaults = false
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(request).map { "\($0.value(forKey: key) ?? "nil")" }
        }
    }

    /// Runs SQL on the store's own connection (so Apple's trigger functions exist), under the coordinator's lock.
    private static func execute(_ coordinator: NSPersistentStoreCoordinator, _ sql: String) throws {
        let store = try #require(coordinator.persistentStores.first as? SQLiteStore)
        try coordinator.withLock { try store.connection.execute(sql) }
    }

    /// Saves a shelf "a" with one slot and a slot "b" on no shelf.
    private static func seed(_ coordinator: NSPersistentStoreCoordinator) throws {
        let context = context(coordinator)
        try context.performAndWait {
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            shelf.setValue("a", forKey: "name")
            let slot = NSEntityDescription.insertNewObject(forEntityName: "Slot", into: context)
            slot.setValue("a1", forKey: "name")
            slot.setValue(shelf, forKey: "shelf")
            NSEntityDescription.insertNewObject(forEntityName: "Slot", into: context).setValue("b", forKey: "name")
            try context.save()
        }
    }

    @Test func aRowWithANewVersionIsReadAgain() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let first = try Self.coordinator(path)
        try Self.seed(first)
        #expect(try Self.values(first, "Slot", "name") == ["a1", "b"])   // cached by `first`
        let second = try Self.coordinator(path)
        let writer = Self.context(second)
        try writer.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Slot")
            request.predicate = NSPredicate(format: "name == 'b'")
            try writer.fetch(request).first?.setValue("b2", forKey: "name")
            try writer.save()
        }
        #expect(try Self.values(first, "Slot", "name") == ["a1", "b2"], "the saved row has a new Z_OPT, so the cached one is not used")
    }

    @Test func derivedAttributesAreReadAgainThoughTheirTriggersKeepTheVersion() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let coordinator = try Self.coordinator(path)
        try Self.seed(coordinator)
        #expect(try Self.values(coordinator, "Shelf", "itemCount") == ["1"])   // the row is cached now
        // Another writer moves slot "b" onto the shelf: Apple's trigger counts it without touching Z_OPT.
        try Self.execute(coordinator, "UPDATE ZSLOT SET ZSHELF = (SELECT Z_PK FROM ZSHELF) WHERE ZNAME = 'b'")
        #expect(try Self.values(coordinator, "Shelf", "itemCount") == ["2"])
    }

    @Test func aRowChangedWithoutANewVersionKeepsItsCachedValuesUntilReadWithNoStaleness() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let coordinator = try Self.coordinator(path)
        try Self.seed(coordinator)
        #expect(try Self.values(coordinator, "Slot", "name") == ["a1", "b"])
        try Self.execute(coordinator, "UPDATE ZSLOT SET ZNAME = 'c' WHERE ZNAME = 'b'")
        #expect(try Self.values(coordinator, "Slot", "name") == ["a1", "b"], "same Z_OPT: the cached row stands for the stored one")
        let context = Self.context(coordinator)
        let refreshed = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Slot")
            request.returnsObjectsAsFaults = false
            let objects = try context.fetch(request)
            for object in objects { context.refresh(object, mergeChanges: false) }
            let cached = objects.map { $0.value(forKey: "name") as? String ?? "nil" }.sorted()
            #expect(cached == ["a1", "b"], "with the default staleness interval a refresh reuses the cached row")
            context.stalenessInterval = 0
            for object in objects { context.refresh(object, mergeChanges: false) }
            return objects.map { $0.value(forKey: "name") as? String ?? "nil" }.sorted()
        }
        #expect(refreshed == ["a1", "c"], "accepting no staleness, the faults read the store")
        #expect(try Self.values(coordinator, "Slot", "name") == ["a1", "c"], "the row read replaced the cached one")
    }

    @Test func prefetchedMembersWithANewVersionAreReadAgain() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let first = try Self.coordinator(path)
        try Self.seed(first)
        func prefetchedSlotNames() throws -> [String] {
            let context = Self.context(first)
            return try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Shelf")
                request.relationshipKeyPathsForPrefetching = ["items"]
                let shelves = try context.fetch(request)
                let slots = (shelves.first?.value(forKey: "items") as? Set<NSManagedObject>) ?? []
                #expect(slots.allSatisfy { !$0.isFault }, "prefetching realizes the members")
                return slots.map { $0.value(forKey: "name") as? String ?? "nil" }.sorted()
            }
        }
        #expect(try prefetchedSlotNames() == ["a1"])   // cached by `first`
        let writer = Self.context(try Self.coordinator(path))
        try writer.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Slot")
            request.predicate = NSPredicate(format: "name == 'a1'")
            try writer.fetch(request).first?.setValue("a2", forKey: "name")
            try writer.save()
        }
        #expect(try prefetchedSlotNames() == ["a2"])
    }
}
