import Foundation
import Testing

import OpenCoreData

/// Saving objects no store can hold: Apple raises `NSInternalInconsistencyException` ("This coordinator has no
/// persistent stores … It cannot perform a save operation"); OpenCoreData throws (`NSPersistentStoreOperationError`
/// when no store holds an object's entity, `NSPersistentStoreSaveError` without a coordinator) and keeps the context's
/// changes (DEVIATIONS O23).
@Suite("Saving without a store")
struct SaveWithoutStoreTests {
    @Test("a coordinator with no store: the save throws 134070 and the object stays inserted")
    func coordinatorWithoutStores() throws {
        NSManagedObjectModel.registerManagedObjectClasses([Mood.self, Country.self, Continent.self, GeographicRegion.self])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let mood = Mood(context: context)
            mood.date = Date(timeIntervalSinceReferenceDate: 0)
            do {
                try context.save()
                Issue.record("the save succeeded without a store")
            } catch let error as CocoaError where error.code == .persistentStoreOperation {
                #expect((error as NSError).domain == NSCocoaErrorDomain)
                #expect((error as NSError).localizedDescription.contains("Mood"))
            }
            #expect(context.insertedObjects.contains(mood))
            #expect(mood.objectID.isTemporaryID)
        }
    }

    @Test("a context with no coordinator: the save throws 134030")
    func contextWithoutCoordinator() throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        try context.performAndWait {
            let entity = try #require(MoodyModel.shared.entitiesByName["Mood"])
            let mood = NSManagedObject(entity: entity, insertInto: context)
            mood.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "date")
            let error = #expect(throws: CocoaError.self) { try context.save() }
            #expect(error?.code == .persistentStoreSave)
            #expect(context.insertedObjects.contains(mood))
        }
    }
}
