import Foundation
import Testing

@testable import OpenCoreData

/// A migration that fails — killed midway, or thrown out of a custom policy — leaves the original store intact
/// and openable with the old model.
@Suite struct MigrationFailureTests {
    static let childVariable = "OPENCOREDATA_MIGRATION_CHILD"
    static var childStore: String? { ProcessInfo.processInfo.environment[childVariable] }

    /// A policy that fails on its third instance.
    final class FailingPolicy: NSEntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            if manager.destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: nil).count == 3 {
                throw CoreDataError.make(NSEntityMigrationPolicyError, "the policy refuses the third author")
            }
        }
    }

    @Test func aPolicyThatThrowsLeavesTheSourceIntactAndNoDestination() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let more = try NSPersistentStoreCoordinator(managedObjectModel: MigrationTestModels.model(package, version: 1))
        try more.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = more
        for name in ["Cy", "Di"] { NSEntityDescription.insertNewObject(forEntityName: "Author", into: context).setValue(name, forKey: "name") }
        try context.save()
        try more.remove(more.persistentStores[0])
        let snapshot = try LightweightMigrationTests.dump(url)

        let source = try MigrationTestModels.model(package, version: 1), destination = try MigrationTestModels.model(package, version: 2)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        mapping.entityMappingsByName["AuthorToWriter"]?.entityMigrationPolicyClassName = "FailingPolicy"
        NSEntityMigrationPolicy.register(FailingPolicy.self, forClassName: "FailingPolicy")
        let target = url.deletingLastPathComponent().appendingPathComponent("Migrated.sqlite")
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        let error = #expect(throws: NSError.self) {
            try manager.migrateStore(from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
                                     toDestinationURL: target, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        }
        #expect(error?.code == NSEntityMigrationPolicyError)
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(try LightweightMigrationTests.dump(url) == snapshot)
        let old = NSPersistentStoreCoordinator(managedObjectModel: source)
        try old.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
    }

    @Test func anUnregisteredPolicyIsAClearError() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let source = try MigrationTestModels.model(package, version: 1), destination = try MigrationTestModels.model(package, version: 2)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        mapping.entityMappingsByName["BookToBook"]?.entityMigrationPolicyClassName = "App.NoSuchPolicy"
        let error = #expect(throws: NSError.self) {
            try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
                toDestinationURL: url.deletingLastPathComponent().appendingPathComponent("Out.sqlite"), destinationType: NSSQLiteStoreType, destinationOptions: nil)
        }
        #expect(error?.code == NSEntityMigrationPolicyError)
        #expect(error?.localizedDescription.contains("App.NoSuchPolicy") == true)
    }

    @Test func cancellingStopsTheMigrationWithTheGivenError() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let source = try MigrationTestModels.model(package, version: 1), destination = try MigrationTestModels.model(package, version: 2)
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        let reason = CoreDataError.make(NSMigrationCancelledError, "the user cancelled")
        manager.progressHandler = { [unowned manager] progress in
            if progress > 0.2 { manager.cancelMigrationWithError(reason) }
        }
        let target = url.deletingLastPathComponent().appendingPathComponent("Cancelled.sqlite")
        let error = #expect(throws: NSError.self) {
            try manager.migrateStore(from: url, sourceType: NSSQLiteStoreType, options: nil, with: nil,
                                     toDestinationURL: target, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        }
        #expect(error?.code == NSMigrationCancelledError)
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    // MARK: Killed midway

    /// A version-1 store large enough that its in-place migration takes a while.
    static func makeLargeVersion1Store(_ package: URL, authors: Int) throws -> URL {
        let url = try TemporaryDirectory.make().appendingPathComponent("Large.sqlite")
        let coordinator = try NSPersistentStoreCoordinator(managedObjectModel: MigrationTestModels.model(package, version: 1))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for index in 0..<authors {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Author \(index)", forKey: "name")
            author.setValue(index % 90, forKey: "age")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue("Book \(index)", forKey: "title")
            book.setValue(author, forKey: "author")
        }
        try context.save()
        try coordinator.remove(coordinator.persistentStores[0])
        return url
    }

    /// The child: opens the store with version 2 and automatic migration, then reports.
    @Test func migrationChild() throws {
        guard let path = Self.childStore, let packagePath = ProcessInfo.processInfo.environment["OPENCOREDATA_MIGRATION_PACKAGE"] else { return }
        let model = try #require(NSManagedObjectModel(contentsOf: URL(fileURLWithPath: packagePath)))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path), options: LightweightMigrationTests.automatic)
        print("OCD-MIGRATE done")
    }

    /// Kills a process at random points of an in-place migration (`OPENCOREDATA_MIGRATION_KILLS`, 6 by default):
    /// each time the file passes `integrity_check` and holds either the whole old store or the whole migrated one.
    @Test(.enabled(if: childStore == nil))
    func killedMidMigrationLeavesTheOldOrTheNewStore() throws {
        let kills = ProcessInfo.processInfo.environment["OPENCOREDATA_MIGRATION_KILLS"].flatMap(Int.init) ?? 6
        let package = try MigrationTestModels.package()
        let pristine = try Self.makeLargeVersion1Store(package, authors: 4_000)
        let snapshot = try LightweightMigrationTests.dump(pristine)
        let v1 = try MigrationTestModels.model(package, version: 1), v2 = try MigrationTestModels.model(package, version: 2)
        var outcomes = (old: 0, new: 0)
        func runChild(_ url: URL, killAfter delay: TimeInterval?) throws -> TimeInterval {
            let process = Process()
            let argument = CommandLine.arguments.first ?? ""
            process.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: argument) ? argument : "/proc/self/exe")
            process.arguments = ["--testing-library", "swift-testing", "--filter", "MigrationFailureTests/migrationChild"]
            var environment = ProcessInfo.processInfo.environment
            environment[Self.childVariable] = url.path
            environment["OPENCOREDATA_MIGRATION_PACKAGE"] = package.path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let started = Date()
            try process.run()
            if let delay {
                usleep(UInt32(delay * 1_000_000))
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            process.waitUntilExit()
            return Date().timeIntervalSince(started)
        }
        // One run to the end measures how long start-up plus migration take; the kills spread over that time.
        let calibration = pristine.deletingLastPathComponent().appendingPathComponent("Calibration.sqlite")
        try FileManager.default.copyItem(at: pristine, to: calibration)
        let duration = try runChild(calibration, killAfter: nil)
        #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: calibration)))
        for run in 0..<kills {
            let url = pristine.deletingLastPathComponent().appendingPathComponent("Run\(run).sqlite")
            try FileManager.default.copyItem(at: pristine, to: url)
            _ = try runChild(url, killAfter: duration * (Double(run) + 0.5) / Double(kills))

            #expect(try RawDatabase(path: url.path).rows("PRAGMA integrity_check").map { "\($0[0])" } == ["'ok'"])
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            if v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
                outcomes.old += 1
                #expect(try LightweightMigrationTests.dump(url).filter { !$0.hasPrefix("Z_METADATA") } == snapshot.filter { !$0.hasPrefix("Z_METADATA") })
            } else {
                #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "run \(run): the metadata names neither version")
                outcomes.new += 1
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v2)
                try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
                let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
                context.persistentStoreCoordinator = coordinator
                #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Writer")) == 4_000)
                #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book", predicate: "authors.@count == 1")) == 4_000)
            }
        }
        print("Migration kills (\(String(format: "%.2f", duration)) s per full run): \(kills) runs, \(outcomes.old) stores still version 1, \(outcomes.new) migrated, none damaged")
    }
}

private extension NSFetchRequest where ResultType == NSManagedObject {
    convenience init(entityName: String, predicate format: String) {
        self.init(entityName: entityName)
        predicate = NSPredicate(format: format)
    }
}
