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

    // MARK: Apple's stage semantics, and no migration that never ends

    @Test(.timeLimit(.minutes(1)))
    func aLightweightStageListsTheVersionsItMigratesFrom() throws {
        // Apple's WWDC23 example: `NSLightweightMigrationStage([v1ModelChecksum])` is "V1 to V2", followed by a
        // custom stage from V2 to V3.
        let package = try MigrationTestModels.package(version3: MigrationTestModels.version3())
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let (v1, v2, v3) = try ((1...3).map { try MigrationTestModels.model(package, version: $0) }).tuple3
        let lightweight = NSLightweightMigrationStage([v1.versionChecksum])
        lightweight.label = "V1 to V2"
        let custom = NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum),
                                            to: NSManagedObjectModelReference(model: v3, versionChecksum: v3.versionChecksum))
        var seen: [String] = []
        custom.willMigrateHandler = { manager, _ in
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                // The store is at V2 here: writers, with a full name.
                seen += try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Writer")).compactMap { $0.value(forKey: "fullName") as? String }
            }
        }
        custom.didMigrateHandler = { manager, _ in
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                let publisher = NSEntityDescription.insertNewObject(forEntityName: "Publisher", into: context)
                publisher.setValue("Acme", forKey: "name")
                publisher.setValue("Paris", forKey: "city")
                try context.save()
            }
        }
        let context = try Self.add(url, model: v3, manager: NSStagedMigrationManager([lightweight, custom]))
        #expect(seen.sorted() == ["Ada", "Bob"])
        #expect(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Publisher")).map { $0.value(forKey: "city") as? String } == ["Paris"])
        #expect(v3.isConfiguration(withName: nil, compatibleWithStoreMetadata: try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)))
    }

    @Test(.timeLimit(.minutes(1)))
    func aStoreAtTheLastStagesVersionMigratesLightweightToTheDestination() throws {
        // The store is at V2, the custom stage's next model; the destination is V3: V2 → V3 is inferred.
        let package = try MigrationTestModels.package(version3: MigrationTestModels.version3())
        let (v1, v2, v3) = try ((1...3).map { try MigrationTestModels.model(package, version: $0) }).tuple3
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        func stage() -> NSCustomMigrationStage {
            NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(model: v1, versionChecksum: v1.versionChecksum),
                                   to: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum))
        }
        _ = try Self.add(url, model: v2, manager: NSStagedMigrationManager([stage()]))
        #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)))
        let context = try Self.add(url, model: v3, manager: NSStagedMigrationManager([stage()]))
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Writer")) == 2)
    }

    @Test(.timeLimit(.minutes(1)))
    func aStoreAtAVersionNoStageNamesIsAnUnknownVersion() throws {
        // Apple: "Cannot use staged migration with an unknown model version." (134504).
        let package = try MigrationTestModels.package(version3: MigrationTestModels.version3())
        let (_, v2, v3) = try ((1...3).map { try MigrationTestModels.model(package, version: $0) }).tuple3
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let snapshot = try LightweightMigrationTests.dump(url)
        let error = #expect(throws: NSError.self) {
            _ = try Self.add(url, model: v3, manager: NSStagedMigrationManager([NSLightweightMigrationStage([v2.versionChecksum])]))
        }
        #expect(error?.code == NSManagedObjectModelReferenceNotFoundError)
        #expect(try LightweightMigrationTests.dump(url) == snapshot)
    }

    @Test(.timeLimit(.minutes(1)))
    func aChecksumListedTwiceIsAnErrorNotAnEndlessLoop() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let snapshot = try LightweightMigrationTests.dump(url)
        let v1 = try MigrationTestModels.model(package, version: 1), v2 = try MigrationTestModels.model(package, version: 2)
        for stages in [[NSLightweightMigrationStage([v1.versionChecksum, v1.versionChecksum])],
                       [NSLightweightMigrationStage([v1.versionChecksum]), NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])]] {
            let error = #expect(throws: NSError.self) { _ = try Self.add(url, model: v2, manager: NSStagedMigrationManager(stages)) }
            #expect(error?.code == NSMigrationError)
            #expect(error?.localizedDescription.contains("Duplicate version checksums") == true)
        }
        #expect(try LightweightMigrationTests.dump(url) == snapshot)
    }

    @Test(.timeLimit(.minutes(1)))
    func aThrowingHandlerEndsTheMigrationWithItsErrorAndTheStoreStays() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let snapshot = try LightweightMigrationTests.dump(url)
        let source = try MigrationTestModels.model(package, version: 1), destination = try MigrationTestModels.model(package, version: 2)
        let stage = NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(model: source, versionChecksum: source.versionChecksum),
                                           to: NSManagedObjectModelReference(model: destination, versionChecksum: destination.versionChecksum))
        stage.willMigrateHandler = { _, _ in throw NSError(domain: "App", code: 42, userInfo: [NSLocalizedDescriptionKey: "not today"]) }
        let error = #expect(throws: NSError.self) { _ = try Self.add(url, model: destination, manager: NSStagedMigrationManager([stage])) }
        #expect(error?.domain == "App" && error?.code == 42)
        #expect(try LightweightMigrationTests.dump(url) == snapshot)
        // The store still opens with its own version, at once.
        _ = try HierarchyMigrationModels.context(url, model: source)
    }

    @Test(.timeLimit(.minutes(1)))
    func stagesThatCannotReachTheDestinationEndWithAMissingMappingError() throws {
        let package = try MigrationTestModels.package(version3: MigrationTestModels.version3(inferable: false))
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let (v1, _, v3) = try ((1...3).map { try MigrationTestModels.model(package, version: $0) }).tuple3
        let error = #expect(throws: NSError.self) {
            _ = try Self.add(url, model: v3, manager: NSStagedMigrationManager([NSLightweightMigrationStage([v1.versionChecksum])]))
        }
        #expect(error?.code == NSMigrationMissingMappingModelError)
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSInferredMappingModelError)
        // Nothing was migrated: the store is still at V1 (the one step, V1 → V3, failed before it began).
        #expect(v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)))
    }
}

extension Array {
    /// The first three elements (the array has at least three).
    var tuple3: (Element, Element, Element) { (self[0], self[1], self[2]) }
}
