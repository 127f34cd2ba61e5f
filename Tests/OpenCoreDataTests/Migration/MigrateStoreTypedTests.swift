import OpenCoreData
import Testing

// NSMigrationManager.migrateStore(from:type:options:mapping:to:type:options:), the iOS 15+ spelling.

private func notesModel(withBody: Bool) -> NSManagedObjectModel {
    let entity = NSEntityDescription()
    entity.name = "Note"
    var names = ["title"]
    if withBody { names.append("body") }
    entity.properties = names.map { name in
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = .stringAttributeType
        attribute.isOptional = true
        return attribute
    }
    let model = NSManagedObjectModel()
    model.entities = [entity]
    return model
}

@Suite struct MigrateStoreTypedTests {
    @Test func aStoreMigratesWithStoreTypes() throws {
        let directory = try TemporaryDirectory.make()
        let source = directory.appendingPathComponent("Notes.sqlite"), destination = directory.appendingPathComponent("Notes-v2.sqlite")
        let v1 = notesModel(withBody: false), v2 = notesModel(withBody: true)
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v1)
            let store = try coordinator.addPersistentStore(type: .sqlite, at: source)
            let context = NSManagedObjectContext(.privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("first", forKey: "title")
                try context.save()
            }
            try coordinator.remove(store)
        }
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        try manager.migrateStore(from: source, type: .sqlite, mapping: mapping, to: destination, type: .sqlite)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v2)
        _ = try coordinator.addPersistentStore(type: .sqlite, at: destination)
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        let titles = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).map { $0.value(forKey: "title") as? String }
        }
        #expect(titles == ["first"])
    }
}
