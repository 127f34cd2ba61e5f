import Foundation
import OpenCoreData

extension NSManagedObjectModel {
    /// The Core Data model of a SwiftData schema (Apple's `makeManagedObjectModel(for:mergedWith:)`): the entities a
    /// `ModelContainer` of `schema` stores with, so Core Data code can open the same store. With `managedObjectModel`,
    /// its entities are added (nil when the two name one entity twice).
    ///
    /// ```swift
    /// let model = NSManagedObjectModel.makeManagedObjectModel(for: Schema([Trip.self]))!
    /// let container = NSPersistentContainer(name: "Trips", managedObjectModel: model)
    /// ```
    public static func makeManagedObjectModel(for schema: Schema, mergedWith managedObjectModel: NSManagedObjectModel? = nil) -> NSManagedObjectModel? {
        // A copy: the schema's own model may already be in use by a coordinator, which makes it immutable.
        guard let own = schema.managedObjectModel.copy() as? NSManagedObjectModel else { return nil }
        guard let managedObjectModel else { return own }
        let names = Set(own.entities.compactMap(\.name))
        guard !managedObjectModel.entities.contains(where: { names.contains($0.name ?? "") }) else { return nil }
        return NSManagedObjectModel(byMerging: [own, managedObjectModel])
    }

    /// The Core Data model of the schema of `types` (and the models their relationships reach).
    ///
    /// ```swift
    /// let model = NSManagedObjectModel.makeManagedObjectModel(for: [Trip.self])!
    /// ```
    public static func makeManagedObjectModel(for types: [any PersistentModel.Type], mergedWith managedObjectModel: NSManagedObjectModel? = nil) -> NSManagedObjectModel? {
        makeManagedObjectModel(for: Schema(types), mergedWith: managedObjectModel)
    }
}
