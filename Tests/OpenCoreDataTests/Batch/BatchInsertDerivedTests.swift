import Foundation
import OpenCoreData
import Testing

/// A batch insert computes the derived attributes the store computes in Swift (not Apple's `.@count` triggers) for
/// the rows it inserts and the rows it overwrites, and the row cache never serves a row as it was before the request.
@Suite struct BatchInsertDerivedTests {
    /// `Tag` (code, unique; name; `key` derived as `lowercase:(name)`).
    private static let model: NSManagedObjectModel = {
        let tag = NSEntityDescription()
        tag.name = "Tag"
        tag.managedObjectClassName = "NSManagedObject"
        let code = NSAttributeDescription(), name = NSAttributeDescription()
        (code.name, code.attributeType, code.isOptional) = ("code", .stringAttributeType, true)
        (name.name, name.attributeType, name.isOptional) = ("name", .stringAttributeType, true)
        let key = NSDerivedAttributeDescription()
        (key.name, key.attributeType, key.isOptional) = ("key", .stringAttributeType, true)
        key.derivationExpression = NSExpression(format: "lowercase:(name)")
        tag.properties = [code, name, key]
        tag.uniquenessConstraints = [["code"]]
        let model = NSManagedObjectModel()
        model.entities = [tag]
        return model
    }()

    private static func keysByCode(_ context: NSManagedObjectContext) throws -> [String: String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
        return Dictionary(uniqueKeysWithValues: try context.fetch(request).map {
            ($0.value(forKey: "code") as? String ?? "?", $0.value(forKey: "key") as? String ?? "nil")
        })
    }

    @Test(arguments: StoreKind.batchCapable)
    func newAndOverwrittenRowsGetTheirDerivedValues(kind: StoreKind) throws {
        let stack = try ConformanceStack(kind, model: Self.model)
        let context = stack.newContext()
        try context.performAndWait {
            _ = try context.execute(NSBatchInsertRequest(entityName: "Tag", objects: [["code": "a", "name": "Alpha"], ["code": "b", "name": "Beta"]]))
            #expect(try Self.keysByCode(context) == ["a": "alpha", "b": "beta"])   // now cached
            context.reset()
            // An upsert of "a" and a new row "c": the overwritten row's derived value follows its new name.
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            _ = try context.execute(NSBatchInsertRequest(entityName: "Tag", objects: [["code": "a", "name": "ALEPH"], ["code": "c", "name": "Gamma"]]))
            #expect(try Self.keysByCode(context) == ["a": "aleph", "b": "beta", "c": "gamma"])
        }
    }
}
