import Foundation
import Testing

@testable import OpenCoreData

// A context keeps the class of the faults it makes for the entity of the last one (the class registry takes a lock and
// a hash look-up per answer). A class registered afterwards is still used for the next faults.

/// Private, so that only registration finds it: `NSClassFromString` cannot name a private class.
private final class FaultClassProbe: NSManagedObject {}

@Suite("Fault classes")
struct FaultClassCacheTests {
    @Test func aClassRegisteredAfterTheContextMadeFaultsIsUsedForTheNextOnes() throws {
        let entity = NSEntityDescription()
        entity.name = "Probe"
        entity.managedObjectClassName = "FaultClassProbe"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        name.isOptional = true
        entity.properties = [name]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Probe", into: context).setValue("a", forKey: "name")
            try context.save()
            context.reset()
            let before = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Probe"))
            #expect(before.count == 1 && !(before[0] is FaultClassProbe), "no class is known by that name yet")

            NSManagedObjectModel.registerManagedObjectClasses([FaultClassProbe.self])
            context.reset()
            let after = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Probe"))
            #expect(after.count == 1 && after[0] is FaultClassProbe, "the registered class, not the one the context kept")
            #expect(after[0].value(forKey: "name") as? String == "a")
        }
    }
}
