import Foundation
import Testing

@testable import OpenCoreData

/// Firing a to-many relationship fault makes its members one fault batch when their rows are not cached: the first
/// member that fires reads the rows of all of them with one query (DEVIATIONS O15). With the rows cached, or in a
/// child context, the members fire one by one as before.
@Suite struct ToManyFaultBatchTests {
    /// `Shelf` (name) —items (to-many)→ `Slot` (name) —shelf (to-one).
    private static let model: NSManagedObjectModel = {
        let shelf = MoodyModelInCode.entity("Shelf"), slot = MoodyModelInCode.entity("Slot")
        let items = MoodyModelInCode.relationship("items", to: slot, toMany: true, optional: true)
        let owner = MoodyModelInCode.relationship("shelf", to: shelf, toMany: false, optional: true)
        items.inverseRelationship = owner
        owner.inverseRelationship = items
        shelf.properties = [MoodyModelInCode.attribute("name", .stringAttributeType, optional: true), items]
        slot.properties = [MoodyModelInCode.attribute("name", .stringAttributeType, optional: true), owner]
        let model = NSManagedObjectModel()
        model.entities = [shelf, slot]
        return model
    }()

    /// A store with one shelf of five slots, reopened by a new coordinator (an empty row cache).
    private static func coldStack() throws -> ConformanceStack {
        let writer = try ConformanceStack(.sqlite, model: model)
        let context = writer.newContext()
        try context.performAndWait {
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            shelf.setValue("shelf", forKey: "name")
            for index in 1...5 {
                let slot = NSEntityDescription.insertNewObject(forEntityName: "Slot", into: context)
                slot.setValue("slot \(index)", forKey: "name")
                slot.setValue(shelf, forKey: "shelf")
            }
            try context.save()
        }
        return try writer.reopened()
    }

    /// The shelf's slots, from the relationship fault of the shelf fetched in `context`.
    private static func slots(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let shelf = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf")).first)
        return try #require(shelf.value(forKey: "items") as? Set<NSManagedObject>).sorted { $0.objectID.uriRepresentation().absoluteString < $1.objectID.uriRepresentation().absoluteString }
    }

    @Test func theFirstMemberToFireLoadsTheOthers() throws {
        let stack = try Self.coldStack()
        let coordinator = stack.coordinator
        let context = stack.newContext()
        try context.performAndWait {
            let slots = try Self.slots(in: context)
            #expect(slots.count == 5 && slots.allSatisfy(\.isFault))
            #expect(coordinator.rowCache.count == 1, "only the shelf's row is cached")
            #expect(slots[2].value(forKey: "name") as? String == "slot 3")
            #expect(coordinator.rowCache.count == 6, "one query read every slot's row")
            #expect(slots.allSatisfy { !$0.isFault }, "the batch is realized together")
            #expect(slots.compactMap { $0.value(forKey: "name") as? String }.sorted() == (1...5).map { "slot \($0)" })
            #expect(context.faultBatches.isEmpty)
        }
    }

    @Test func membersWithCachedRowsAreNotBatched() throws {
        let stack = try Self.coldStack()
        let warm = stack.newContext()
        try warm.performAndWait { _ = try Self.slots(in: warm).map { $0.value(forKey: "name") } }   // every row cached
        let context = stack.newContext()
        try context.performAndWait {
            let slots = try Self.slots(in: context)
            #expect(context.faultBatches.isEmpty)
            #expect(slots[0].value(forKey: "name") as? String == "slot 1")
            #expect(slots.dropFirst().allSatisfy { $0.isFault }, "each member fires on its own, from the cache")
        }
    }

    @Test func membersWithCachedRowsShareTheCachesIDs() throws {
        let stack = try Self.coldStack()
        let warm = stack.newContext()
        let fetchedIDs = try warm.performAndWait {
            try warm.fetch(NSFetchRequest<NSManagedObject>(entityName: "Slot")).map(\.objectID)
        }
        let context = stack.newContext()
        try context.performAndWait {
            let slots = try Self.slots(in: context)
            #expect(slots.count == 5)
            // The same ID objects as the fetch's (the row cache's), not equal ones of their own.
            #expect(slots.allSatisfy { slot in fetchedIDs.contains { $0 === slot.objectID } })
        }
    }

    @Test func aChildContextsMembersAreNotBatched() throws {
        let stack = try Self.coldStack()
        let parent = stack.newContext()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            let slots = try Self.slots(in: child)
            #expect(child.faultBatches.isEmpty)
            #expect(slots[0].value(forKey: "name") as? String == "slot 1")
            #expect(slots.dropFirst().allSatisfy { $0.isFault })
        }
    }
}
