import Foundation
import Testing

@testable import OpenCoreData

/// `NSStagedMigrationManager` through `NSPersistentStoreStagedMigrationManagerOptionKey`.
@Suite struct StagedMigrationTests {
    static func add(_ url: URL, model: NSManagedObjectModel, manager: NSStagedMigrationManager) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func customStageFixesDataBeforeAndFillsItInAfter() throws {
        // Version 2 makes writer names unique; the store has two authors called Ada.
        let package = try MigrationTestModels.package(version2: MigrationTestModels.version2(uniqueWriterNames: true))
        let url = try LightweightMigrationTests.makeVersion1Store(package, duplicateNames: true)
        let v1 = try MigrationTestModels.model(package, version: 1), v2 = try MigrationTestModels.model(package, version: 2)
        let stage = NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(model: v1, versionChecksum: v1.versionChecksum),
                                           to: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum))
        stage.label = "unique writer names"
        var calls: [String] = []
        stage.willMigrateHandler = { manager, stage in
            calls.append("will \(stage.label ?? "")")
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                let authors = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author"))
                var seen = Set<String>()
                for author in authors.sorted(by: { $0.objectID.uriRepresentation().absoluteString < $1.objectID.uriRepresentation().absoluteString }) {
                    let name = author.value(forKey: "name") as? String ?? ""
                    if !seen.insert(name).inserted { author.setValue(name + " (2)", forKey: "name") }
                }
                try context.save()
            }
        }
        stage.didMigrateHandler = { manager, _ in
            calls.append("did")
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                for writer in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Writer")) {
                    writer.setValue((writer.value(forKey: "fullName") as? String)?.lowercased(), forKey: "nickname")
                }
                try context.save()
            }
        }
        let manager = NSStagedMigrationManager([stage])
        let context = try Self.add(url, model: v2, manager: manager)
        #expect(calls == ["will unique writer names", "did"])
        #expect(manager.container == nil)
        let writers = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Writer"))
        #expect(writers.compactMap { $0.value(forKey: "fullName") as? String }.sorted() == ["Ada", "Ada (2)"])
        #expect(writers.compactMap { $0.value(forKey: "nickname") as? String }.sorted() == ["ada", "ada (2)"])
    }

    @Test func lightweightStageFindsItsModelsByChecksum() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let v1 = try MigrationTestModels.model(package, version: 1)
        let v2 = try #require(NSManagedObjectModel(contentsOf: package))
        let context = try Self.add(url, model: v2, manager: NSStagedMigrationManager([NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])]))
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Writer")) == 2)
    }

    @Test func anUnknownChecksumIsAClearErrorAndTheStoreStays() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let snapshot = try LightweightMigrationTests.dump(url)
        let v2 = try MigrationTestModels.model(package, version: 2)
        let missing = NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(fileURL: package.appendingPathComponent("nothing.xcdatamodel"), versionChecksum: "abc"),
                                             to: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum))
        let error = #expect(throws: NSError.self) { _ = try Self.add(url, model: v2, manager: NSStagedMigrationManager([missing])) }
        #expect(error?.code == NSManagedObjectModelReferenceNotFoundError)
        let wrongChecksum = NSManagedObjectModelReference(model: v2, versionChecksum: "not-its-checksum")
        #expect(wrongChecksum.resolvedModel.entities.isEmpty)
        #expect(try LightweightMigrationTests.dump(url) == snapshot)
    }

    @Test func migratingBackwardIsRefused() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let v1 = try MigrationTestModels.model(package, version: 1), v2 = try MigrationTestModels.model(package, version: 2)
        _ = try Self.add(url, model: v2, manager: NSStagedMigrationManager([NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])]))
        let error = #expect(throws: NSError.self) {
            _ = try Self.add(url, model: MigrationTestModels.model(package, version: 1),
                             manager: NSStagedMigrationManager([NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])]))
        }
        #expect(error?.code == NSStagedMigrationBackwardMigrationError)
    }
}
