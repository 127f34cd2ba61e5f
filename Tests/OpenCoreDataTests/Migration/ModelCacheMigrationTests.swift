import Foundation
import Testing

@testable import OpenCoreData

/// Automatic lightweight migration with only the app's current model: the source is the model the store carries
/// in `Z_MODELCACHE`, as Apple's source model search does for SQLite stores ("Testing model cached in database file",
/// `-[NSStoreMigrationPolicy sourceModelForStoreAtURL:metadata:error:]`).
@Suite struct ModelCacheMigrationTests {
    /// Rows per entity, counted with SQL in the entity tables (`Z_PRIMARYKEY` names the entities and their numbers;
    /// a sub-entity's rows are in its root's table).
    static func rowCounts(_ url: URL) throws -> [String: Int] {
        let database = try RawDatabase(path: url.path)
        var names: [Int: (name: String, parent: Int)] = [:]
        for row in try database.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000") {
            guard let number = row[0].integer, let name = row[1].string, let parent = row[2].integer else { continue }
            names[Int(number)] = (name, Int(parent))
        }
        var counts: [String: Int] = [:]
        for (number, entry) in names {
            var root = entry
            while root.parent != 0, let parent = names[root.parent] { root = parent }
            let count = try database.rows("SELECT COUNT(*) FROM \(SQLiteStore.quoted("Z" + root.name.uppercased())) WHERE Z_ENT = \(number)")
            if let value = count.first?.first?.integer { counts[entry.name] = Int(value) }
        }
        return counts
    }

    /// The package's current version alone, as a single `.xcdatamodel` in a folder of its own.
    static func currentVersionAlone(_ contents: Data) throws -> URL {
        let folder = try TemporaryDirectory.make().appendingPathComponent("Current.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try contents.write(to: folder.appendingPathComponent("contents"))
        return folder
    }

    @Test func aStoreMigratesFromTheModelItCarries() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let before = try Self.rowCounts(url)
        let destination = try NSManagedObjectModel(validatingContentsOf: Self.currentVersionAlone(Data(MigrationTestModels.version2().utf8)))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destination)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: LightweightMigrationTests.automatic)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let writers = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Writer")).compactMap { $0.value(forKey: "fullName") as? String }.sorted()
        #expect(writers == ["Ada", "Bob"])
        let after = try Self.rowCounts(url)
        #expect(after["Writer"] == before["Author"] && after["Book"] == before["Book"] && after["Tag"] == before["Tag"])
        #expect(destination.isConfiguration(withName: nil, compatibleWithStoreMetadata: try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)))
    }

    @Test func withoutACacheTheSourceModelIsStillMissing() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute("DELETE FROM Z_MODELCACHE")
        connection.close()
        let snapshot = try LightweightMigrationTests.dump(url)
        let destination = try NSManagedObjectModel(validatingContentsOf: Self.currentVersionAlone(Data(MigrationTestModels.version2().utf8)))
        let error = #expect(throws: NSError.self) {
            try NSPersistentStoreCoordinator(managedObjectModel: destination).addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: LightweightMigrationTests.automatic)
        }
        #expect(error?.code == NSMigrationMissingSourceModelError)
        #expect(try LightweightMigrationTests.dump(url) == snapshot)
    }

    static let wireStores = ["store2-24-1", "store2-80-0", "store2-100-0"]

    @Test("Wire stores migrate with the 2.101.0 model alone, every entity keeping its rows", arguments: wireStores)
    func wireStoresMigrateWithTheNewModelAlone(store: String) throws {
        try #require(Corpus.isAvailable, Corpus.missingMessage)
        let url = try Corpus.storeCopy("wireapp__wire-ios-data-model__\(store).wiredatabase")
        let contents = try Data(contentsOf: Corpus.models.appendingPathComponent("wireapp__wire-ios-data-model__zmessaging__zmessaging2.101.0.xml"))
        let destination = try NSManagedObjectModel(validatingContentsOf: Self.currentVersionAlone(contents))
        let before = try Self.rowCounts(url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destination)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: LightweightMigrationTests.automatic)
        try coordinator.remove(coordinator.persistentStores[0])
        let after = try Self.rowCounts(url)
        // Every entity of the old model that the new one keeps (by name or renaming identifier) has its rows.
        var compared: [String] = []
        for (name, count) in before {
            let kept = destination.entitiesByName[name] ?? destination.entities.first { $0.renamingIdentifier == name }
            guard let kept else {
                #expect(count == 0, "\(store): \(name) (\(count) rows) is not in 2.101.0")
                continue
            }
            #expect(after[kept.name ?? ""] == count, "\(store): \(name) had \(count) rows, \(kept.name ?? "") has \(after[kept.name ?? ""] ?? -1)")
            compared.append("\(name)=\(count)")
        }
        print("\(store) row counts (before = after): \(compared.sorted().joined(separator: ", "))")
        #expect(!compared.isEmpty)
        #expect(destination.isConfiguration(withName: nil, compatibleWithStoreMetadata: try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)))
        // The migrated store opens without migration and fetches.
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: destination)
        try reopened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = reopened
        for entity in destination.entities where entity.superentity == nil {
            let hierarchy = destination.entities.filter { $0.isKindOf(entity: entity) }.reduce(0) { $0 + (after[$1.name ?? ""] ?? 0) }
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")) == hierarchy, "\(store): \(entity.name ?? "")")
        }
    }
}
