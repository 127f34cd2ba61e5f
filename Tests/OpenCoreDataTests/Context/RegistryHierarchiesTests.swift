import Foundation
import Testing

@testable import OpenCoreData

/// A context's registry keeps a table per inheritance hierarchy, the one changed last outside its dictionary: objects
/// of several hierarchies registered, moved to permanent IDs, deleted and released in turns are each found under
/// their current ID only, and counted once.
@Suite struct RegistryHierarchiesTests {
    /// `Tag`; `Note` with its sub-entity `Memo` (one hierarchy).
    private static func context() throws -> NSManagedObjectContext {
        let tag = MoodyModelInCode.entity("Tag"), note = MoodyModelInCode.entity("Note"), memo = MoodyModelInCode.entity("Memo")
        tag.properties = [MoodyModelInCode.attribute("name", .stringAttributeType, optional: true)]
        note.properties = [MoodyModelInCode.attribute("text", .stringAttributeType, optional: true)]
        memo.properties = [MoodyModelInCode.attribute("due", .dateAttributeType, optional: true)]
        note.subentities = [memo]
        let model = NSManagedObjectModel()
        model.entities = [tag, note, memo]
        return try ConformanceStack(.sqlite, model: model).newContext()
    }

    @Test func objectsOfSeveralHierarchiesInTurnsAreFoundUnderTheirCurrentIDs() throws {
        let context = try Self.context()
        let names = ["Tag", "Note", "Memo"]
        try context.performAndWait {
            var objects = (0..<90).map { NSEntityDescription.insertNewObject(forEntityName: names[$0 % 3], into: context) }
            let temporary = objects.map(\.objectID)
            #expect(context.registeredObjects.count == 90)
            for (object, id) in zip(objects, temporary) { #expect(context.registeredObject(for: id) === object) }

            try context.save()
            for (object, id) in zip(objects, temporary) {
                #expect(!object.objectID.isTemporaryID)
                #expect(context.registeredObject(for: object.objectID) === object)
                #expect(context.registeredObject(for: id) == nil, "the temporary ID left the registry")
            }
            #expect(context.registeredObjects.count == 90)

            let deleted = Set(stride(from: 0, to: 90, by: 4))
            for index in deleted { context.delete(objects[index]) }
            try context.save()
            #expect(context.registeredObjects.count == 90 - deleted.count)
            for (index, object) in objects.enumerated() {
                #expect((context.registeredObject(for: object.objectID) != nil) == !deleted.contains(index))
            }
            objects = []
            context.reset()
            #expect(context.registeredObjects.isEmpty)
        }
        let again = try context.performAndWait { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")) }
        #expect(again.count == 45, "60 notes and memos, 15 of them deleted")
        #expect(context.performAndWait { context.registeredObjects.count } == again.count)
    }
}
