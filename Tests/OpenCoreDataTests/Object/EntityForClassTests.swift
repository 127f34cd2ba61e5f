import Foundation
import Testing

@testable import OpenCoreData

private final class Memo: NSManagedObject {
    @Managed var text: String?
}

/// `Memo(context:)` inserts an object of the entity whose class is `Memo` in the context's model, and the context
/// keeps its last answer only for the model it came from.
@Suite struct EntityForClassTests {
    /// A model with one entity, `Memo`, of class `Memo`.
    private static func model() -> NSManagedObjectModel {
        let memo = MoodyModelInCode.entity("Memo")
        memo.managedObjectClassName = "Memo"
        memo.properties = [MoodyModelInCode.attribute("text", .stringAttributeType, optional: true)]
        let model = NSManagedObjectModel()
        model.entities = [memo]
        return model
    }

    @Test func theEntityComesFromTheContextsCurrentModel() throws {
        let first = try ConformanceStack(.inMemory, model: Self.model())
        let second = try ConformanceStack(.inMemory, model: Self.model())
        let context = first.newContext()
        context.performAndWait {
            let one = Memo(context: context)
            let two = Memo(context: context)
            #expect(one.entity === two.entity)
            #expect(one.entity.managedObjectModel === context.persistentStoreCoordinator?.managedObjectModel)
            context.reset()
            context.persistentStoreCoordinator = second.coordinator
            let three = Memo(context: context)
            #expect(three.entity !== one.entity, "the second model's entity, not the answer kept for the first")
            #expect(three.entity.managedObjectModel === context.persistentStoreCoordinator?.managedObjectModel)
        }
    }
}
