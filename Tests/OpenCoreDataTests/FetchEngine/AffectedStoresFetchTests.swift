import OpenCoreData
import Testing

// NSFetchRequest.affectedStores: a fetch searches only the stores it names.

@Suite struct AffectedStoresFetchTests {
    @Test func aFetchSearchesOnlyItsAffectedStores() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
        let current = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let archive = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for (rating, store) in [(1, current), (2, current), (5, archive)] {
                let mood = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: context)
                mood.setValue(Date(), forKey: "date")
                mood.setValue(Int16(rating), forKey: "rating")
                context.assign(mood, to: store)
            }
            try context.save()
            context.reset()

            let request = NSFetchRequest<NSManagedObject>(entityName: "Mood")
            request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
            #expect(try context.fetch(request).count == 3)
            request.affectedStores = [archive]
            #expect(request.affectedStores?.first === archive)
            #expect(try context.fetch(request).map { $0.value(forKey: "rating") as? Int16 } == [5])
            #expect(try context.count(for: request) == 1)
            request.affectedStores = [current]
            #expect(try context.fetch(request).map { $0.value(forKey: "rating") as? Int16 } == [1, 2])
            let copy = request.copy() as! NSFetchRequest<NSManagedObject>
            #expect(copy.affectedStores?.first === current)
        }
    }
}
