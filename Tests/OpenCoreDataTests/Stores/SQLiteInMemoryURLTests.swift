import Foundation
import OpenCoreData
import Testing

/// `/dev/null` as an SQLite store's URL gives an in-memory SQLite database (the common idiom for tests with
/// Apple's Core Data), and adding the same store file twice is refused with Apple's error.
@Suite("SQLite store URLs")
struct SQLiteInMemoryURLTests {
    @Test("an SQLite store at /dev/null is an empty in-memory database, one per store")
    func devNullIsInMemory() throws {
        let model = SQLiteFetchCompilerTests.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let first = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: "/dev/null"), options: nil)
        #expect(first.type == NSSQLiteStoreType)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("pen", forKey: "name")
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: "/dev/null-wal"))
        #expect(!FileManager.default.fileExists(atPath: "/dev/.null_SUPPORT"))

        let other = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: "/dev/null"), options: nil)
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = other
        #expect(try fresh.performAndWait { try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) } == 0, "its own database")
    }

    @Test("adding the same store file twice is refused (134081)")
    func sameStoreTwice() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("twice-\(UUID().uuidString).sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLiteFetchCompilerTests.model())
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        #expect {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        } throws: { error in
            (error as NSError).code == 134081 && (error as NSError).domain == NSCocoaErrorDomain
        }
        #expect(coordinator.persistentStores.count == 1)
    }
}
