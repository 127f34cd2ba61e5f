import OpenCoreData
import Synchronization
import Testing

// The RawRepresentable and Hashable members of the iOS 15+ Swift types, used the way iOS code uses them.

@Suite struct SwiftSpellingRawValueTests {
    @Test func swiftTypesWrapTheirObjectiveCRawValues() {
        let attributeRaw: NSAttributeDescription.AttributeType.RawValue = .dateAttributeType
        #expect(NSAttributeDescription.AttributeType(rawValue: attributeRaw) == .date)
        let concurrencyRaw: NSManagedObjectContext.ConcurrencyType.RawValue = .privateQueueConcurrencyType
        #expect(NSManagedObjectContext.ConcurrencyType(rawValue: concurrencyRaw) == .privateQueue)
        let storeRaw: NSPersistentStore.StoreType.RawValue = NSSQLiteStoreType
        #expect(NSPersistentStore.StoreType(rawValue: storeRaw) == .sqlite)
        #expect(Set([NSPersistentStore.StoreType.sqlite, .inMemory, .sqlite]).count == 2)
    }

    @Test func notificationKeysAreTheirUserInfoStrings() throws {
        let raw: NSManagedObjectContext.NotificationKey.RawValue = "inserted"
        #expect(NSManagedObjectContext.NotificationKey(rawValue: raw) == .insertedObjects)
        #expect(NSManagedObjectContext.NotificationKey.insertedObjects.rawValue == NSInsertedObjectsKey)
        #expect(NSManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue == "deleted_objectIDs")
        #expect(NSManagedObjectContext.NotificationKey.sourceContext.rawValue == "managedObjectContext")
        #expect(NSManagedObjectContext.NotificationKey(rawValue: "nonsense") == nil)
        let keys: Set<NSManagedObjectContext.NotificationKey> = [.insertedObjects, .updatedObjects, .insertedObjects]
        #expect(keys.count == 2)
        // As iOS code reads a did-save notification.
        let stack = try MoodyStack()
        let inserted = Mutex<Int>(-1)
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: stack.context, queue: nil) { note in
            let objects = note.userInfo?[NSManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<NSManagedObject>
            inserted.withLock { $0 = objects?.count ?? 0 }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try stack.context.performAndWait {
            let mood = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: stack.context)
            mood.setValue(Date(), forKey: "date")
            try stack.context.save()
        }
        #expect(inserted.withLock { $0 } == 1)
    }

    @Test func scheduledTaskTypesAreHashable() {
        let immediate = NSManagedObjectContext.ScheduledTaskType.immediate
        #expect(immediate == .immediate && immediate != .enqueued)
        #expect(Set([immediate, .enqueued, .immediate]).count == 2)
        #expect(immediate.hashValue == NSManagedObjectContext.ScheduledTaskType.immediate.hashValue)
        var first = Hasher(), second = Hasher()
        first.combine(NSManagedObjectContext.ScheduledTaskType.enqueued)
        second.combine(NSManagedObjectContext.ScheduledTaskType.enqueued)
        #expect(first.finalize() == second.finalize())
    }
}
