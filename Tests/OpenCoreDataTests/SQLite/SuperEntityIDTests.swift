import Foundation
import OpenCoreData
import Testing

/// An object known first by an ID of its super-entity (from a URI naming the super-entity) has its row cached under
/// that ID; a fetch of the sub-entity still hands out objects of the row's own entity.
@Suite struct SuperEntityIDTests {
    @Test func aFetchHandsOutTheRowsOwnEntity() throws {
        let writer = try ConformanceStack(.sqlite, model: BatchModel.shared)
        let context = writer.newContext()
        let uri = try context.performAndWait { () throws -> URL in
            let special = NSEntityDescription.insertNewObject(forEntityName: "SpecialItem", into: context)
            special.setValue("s", forKey: "name")
            special.setValue(3, forKey: "level")
            try context.save()
            return special.objectID.uriRepresentation()
        }
        let stack = try writer.reopened()
        let superURI = try #require(URL(string: uri.absoluteString.replacingOccurrences(of: "/SpecialItem/", with: "/Item/")))
        let superID = try #require(stack.coordinator.managedObjectID(forURIRepresentation: superURI))
        #expect(superID.entity.name == "Item")
        let first = stack.newContext()
        first.performAndWait { #expect(first.object(with: superID).value(forKey: "name") as? String == "s") }   // cached under the Item ID
        let second = stack.newContext()
        try second.performAndWait {
            let fetched = try second.fetch(NSFetchRequest<NSManagedObject>(entityName: "SpecialItem"))
            #expect(fetched.map { $0.entity.name } == ["SpecialItem"])
            #expect(fetched.map { $0.objectID.entity.name } == ["SpecialItem"])
            #expect(fetched.first?.value(forKey: "level") as? Int == 3)
        }
    }
}
