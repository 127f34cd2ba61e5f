import Foundation
import Testing

@testable import OpenCoreData

/// Smaller pieces of the migration API: selector registration for mapping expressions, replacing and
/// destroying stores.
@Suite struct MigrationAPITests {
    final class ShoutingPolicy: NSEntityMigrationPolicy {
        func shout(_ value: Any?) -> Any? { (value as? String).map { $0.uppercased() + "!" } }
    }

    @Test func mappingExpressionsCallRegisteredPolicyMethods() throws {
        NSExpression.registerFunction("shout:", on: ShoutingPolicy.self) { policy, arguments in policy.shout(arguments.first ?? nil) }
        NSEntityMigrationPolicy.register(ShoutingPolicy.self, forClassName: "App.ShoutingPolicy")
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let source = try MigrationTestModels.model(package, version: 1), destination = try MigrationTestModels.model(package, version: 2)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let writer = try #require(mapping.entityMappingsByName["AuthorToWriter"])
        writer.entityMigrationPolicyClassName = "App.ShoutingPolicy"
        writer.attributeMappings?.first { $0.name == "nickname" }?.valueExpression = NSExpression(format: #"FUNCTION($entityPolicy, "shout:", $source.name)"#)
        let target = url.deletingLastPathComponent().appendingPathComponent("Shouted.sqlite")
        try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
            from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: target, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destination)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: target, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let nicknames = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Writer")).compactMap { $0.value(forKey: "nickname") as? String }.sorted()
        #expect(nicknames == ["ADA!", "BOB!"])
    }

    @Test func anUnregisteredSelectorFailsTheMigrationWithAnError() throws {
        let package = try MigrationTestModels.package()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let source = try MigrationTestModels.model(package, version: 1), destination = try MigrationTestModels.model(package, version: 2)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        mapping.entityMappingsByName["AuthorToWriter"]?.attributeMappings?.first { $0.name == "nickname" }?.valueExpression =
            NSExpression(format: #"FUNCTION($entityPolicy, "noSuchMethod:", $source.name)"#)
        let target = url.deletingLastPathComponent().appendingPathComponent("Out.sqlite")
        let error = #expect(throws: NSError.self) {
            try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: target, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        }
        #expect(error?.code == NSMigrationError)
        #expect(error?.localizedDescription.contains("noSuchMethod:") == true)
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    static let attachmentModel = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Attachment" representedClassName="Attachment" syncable="YES">
                <attribute name="bytes" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """

    /// `attachmentModel` written as an `.xcdatamodel` package in `folder` and loaded from it.
    private static func loadAttachmentModel(in folder: URL) throws -> NSManagedObjectModel {
        let package = folder.appendingPathComponent("Files.xcdatamodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data(attachmentModel.utf8).write(to: package.appendingPathComponent("contents"))
        return try NSManagedObjectModel(validatingContentsOf: package)
    }

    @Test func replacingAStoreCopiesItsRowsAndExternalDataAndDestroyRemovesEverything() throws {
        let folder = try TemporaryDirectory.make()
        let model = try Self.loadAttachmentModel(in: folder)
        let source = folder.appendingPathComponent("Source.sqlite"), destination = folder.appendingPathComponent("Destination.sqlite")
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: source, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let attachment = NSEntityDescription.insertNewObject(forEntityName: "Attachment", into: context)
            attachment.setValue("big", forKey: "name")
            attachment.setValue(big, forKey: "bytes")
            try context.save()
            try coordinator.remove(coordinator.persistentStores[0])
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.replacePersistentStore(at: destination, destinationOptions: nil, withPersistentStoreFrom: source, sourceOptions: nil, ofType: NSSQLiteStoreType)
        try coordinator.destroyPersistentStore(at: source, ofType: NSSQLiteStoreType, options: nil)
        // Emptied in place, as Apple's SQLite store is (the file stays); its external data is gone.
        #expect(FileManager.default.fileExists(atPath: source.path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".Source_SUPPORT").path))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: destination, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let attachment = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Attachment")).first)
        #expect(attachment.value(forKey: "bytes") as? Data == big)
        try coordinator.destroyPersistentStore(at: destination, ofType: NSSQLiteStoreType, options: nil)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".Destination_SUPPORT").path))
    }

    @Test func replacingAStoreLeavesOnlyTheSourcesExternalDataInTheDestination() throws {
        let folder = try TemporaryDirectory.make()
        let model = try Self.loadAttachmentModel(in: folder)
        let source = folder.appendingPathComponent("Source.sqlite"), destination = folder.appendingPathComponent("Destination.sqlite")
        for (url, seed) in [(source, 7), (destination, 11)] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let attachment = NSEntityDescription.insertNewObject(forEntityName: "Attachment", into: context)
            attachment.setValue(Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* seed) }), forKey: "bytes")
            try context.save()
            try coordinator.remove(coordinator.persistentStores[0])
        }
        let external = { (name: String) in folder.appendingPathComponent(".\(name)_SUPPORT/_EXTERNAL_DATA").path }
        try NSPersistentStoreCoordinator(managedObjectModel: model).replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
        #expect(try FileManager.default.contentsOfDirectory(atPath: external("Destination")).sorted()
                    == FileManager.default.contentsOfDirectory(atPath: external("Source")).sorted())
    }

    @Test func metadataOfFilesThatAreNotStoresIsAClearError() throws {
        let folder = try TemporaryDirectory.make()
        let noise = folder.appendingPathComponent("noise.sqlite")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: noise)
        let notADatabase = #expect(throws: NSError.self) { _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: noise) }
        #expect(notADatabase?.code == NSFileReadCorruptFileError)
        let plain = folder.appendingPathComponent("plain.sqlite")
        let connection = try SQLiteConnection(path: plain.path)
        try connection.execute("CREATE TABLE notes (text TEXT)")
        connection.close()
        let foreign = #expect(throws: NSError.self) { _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: plain) }
        #expect(foreign?.code == NSPersistentStoreIncompatibleSchemaError)
    }
}
