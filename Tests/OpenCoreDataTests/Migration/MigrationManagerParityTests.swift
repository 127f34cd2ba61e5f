import Foundation
import Testing

@_spi(OpenSwiftData) @testable import OpenCoreData

/// An app class the migration must not use: its hooks count their calls.
final class MigrationProbe: NSManagedObject {
    static let calls = Locked<[String]>([])
    override func awakeFromInsert() { super.awakeFromInsert(); Self.calls.withLock { $0.append("awakeFromInsert") } }
    override func awakeFromFetch() { super.awakeFromFetch(); Self.calls.withLock { $0.append("awakeFromFetch") } }
    override func validateForInsert() throws { Self.calls.withLock { $0.append("validateForInsert") }; try super.validateForInsert() }
    override func validateForUpdate() throws { Self.calls.withLock { $0.append("validateForUpdate") }; try super.validateForUpdate() }
    override func willSave() { super.willSave(); Self.calls.withLock { $0.append("willSave") } }
}

/// `NSMigrationManager.migrateStore` as Apple's runs it (Apple's Core Data, `-[NSMigrationManager
/// migrateStoreFromURL:…]`): instances are plain `NSManagedObject`s of the migration's own copies of the models;
/// after the instance and relationship stages every destination object is validated (`validateForUpdate`), then each
/// mapping's `performCustomValidation` and `end` run in turn, then the store is saved.
@Suite struct MigrationManagerParityTests {
    static func probeModel(_ version: Int) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Probe" representedClassName="MigrationProbe" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                \(version >= 2 ? #"<attribute name="extra" optional="YES" attributeType="String"/>"# : "")
            </entity>
        </model>
        """
    }

    /// Records the classes of the instances it sees and the stages it runs.
    final class RecordingPolicy: NSEntityMigrationPolicy {
        static let log = Locked<[String]>([])
        override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            let destination = manager.destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: [sInstance])
            Self.log.withLock { $0.append("source \(type(of: sInstance))") }
            Self.log.withLock { log in log += destination.map { "destination \(type(of: $0))" } }
            // A policy's own insert into the destination context is a plain object too.
            guard mapping.destinationEntityName == "Probe" else { return }
            let extra = NSEntityDescription.insertNewObject(forEntityName: "Probe", into: manager.destinationContext)
            extra.setValue("made by the policy", forKey: "name")
            Self.log.withLock { $0.append("inserted \(type(of: extra))") }
        }
        override func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
            Self.log.withLock { $0.append("validate \(mapping.name ?? "?")") }
        }
        override func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {
            Self.log.withLock { $0.append("end \(mapping.name ?? "?")") }
        }
    }

    @Test func instancesArePlainManagedObjectsAndTheAppClassIsNotCalled() throws {
        NSManagedObjectModel.registerManagedObjectClasses([MigrationProbe.self])
        let folder = try TemporaryDirectory.make()
        var models: [NSManagedObjectModel] = []
        for version in [1, 2] {
            let file = folder.appendingPathComponent("Probe\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
            try Data(Self.probeModel(version).utf8).write(to: file.appendingPathComponent("contents"))
            models.append(try NSManagedObjectModel(validatingContentsOf: file))
        }
        let url = folder.appendingPathComponent("Probe.sqlite")
        do {
            let context = try HierarchyMigrationModels.context(url, model: models[0])
            let probe = NSEntityDescription.insertNewObject(forEntityName: "Probe", into: context)
            #expect(probe is MigrationProbe, "outside a migration the app class is used")
            probe.setValue("p", forKey: "name")
            try context.save()
        }
        #expect(MigrationProbe.calls.withLock { $0 }.contains("awakeFromInsert"))
        MigrationProbe.calls.withLock { $0 = [] }

        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: models[0], destinationModel: models[1])
        mapping.entityMappingsByName["ProbeToProbe"]?.entityMigrationPolicyClassName = "MigrationManagerParityTests.RecordingPolicy"
        NSEntityMigrationPolicy.register(RecordingPolicy.self, forClassName: "MigrationManagerParityTests.RecordingPolicy")
        let target = folder.appendingPathComponent("Migrated.sqlite")
        try Self.withLog {
            try NSMigrationManager(sourceModel: models[0], destinationModel: models[1]).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: target, destinationType: NSSQLiteStoreType, destinationOptions: nil)
            #expect(RecordingPolicy.log.withLock { $0 }.prefix(3) == ["source NSManagedObject", "destination NSManagedObject", "inserted NSManagedObject"])
        }
        #expect(MigrationProbe.calls.withLock { $0 } == [], "the app class's overrides do not run during a migration")
        let migrated = try HierarchyMigrationModels.context(target, model: models[1])
        let names = try migrated.fetch(NSFetchRequest<NSManagedObject>(entityName: "Probe")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        #expect(names == ["made by the policy", "p"])
    }

    @Test func everyDestinationObjectIsValidatedBeforeCustomValidationAndEachMappingEndsAfterItsOwn() throws {
        NSEntityMigrationPolicy.register(RecordingPolicy.self, forClassName: "MigrationManagerParityTests.RecordingPolicy")
        // Valid data: the policy's stages run per mapping, validation then end, mapping after mapping.
        let package = try HierarchyMigrationModels.package()
        let url = try HierarchyMigrationModels.makeVersion1Store(package)
        let source = try HierarchyMigrationModels.model(package, version: 1), destination = try HierarchyMigrationModels.model(package, version: 2)
        var mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        for name in ["PersonToPerson", "TagToTag"] { mapping.entityMappingsByName[name]?.entityMigrationPolicyClassName = "MigrationManagerParityTests.RecordingPolicy" }
        let order = (mapping.entityMappings ?? []).compactMap(\.name).filter { ["PersonToPerson", "TagToTag"].contains($0) }
        let staged = try TemporaryDirectory.make()
        try Self.withLog {
            try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
                toDestinationURL: staged.appendingPathComponent("A.sqlite"), destinationType: NSSQLiteStoreType, destinationOptions: nil)
            let stages = RecordingPolicy.log.withLock { $0 }.filter { $0.hasPrefix("validate") || $0.hasPrefix("end") }
            #expect(stages == order.flatMap { ["validate \($0)", "end \($0)"] })
        }

        // Invalid data (every person lacks the now required email): the objects' validation fails first, so no
        // custom validation runs; the error lists each object's error, with the object's description.
        let strict = try HierarchyMigrationModels.package(version2: HierarchyMigrationModels.version(2, personEmailRequired: true))
        let strictURL = try HierarchyMigrationModels.makeVersion1Store(strict)
        let strictDestination = try HierarchyMigrationModels.model(strict, version: 2)
        mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: strictDestination)
        for name in ["PersonToPerson", "TagToTag"] { mapping.entityMappingsByName[name]?.entityMigrationPolicyClassName = "MigrationManagerParityTests.RecordingPolicy" }
        let target = staged.appendingPathComponent("B.sqlite")
        try Self.withLog {
            let error = #expect(throws: NSError.self) {
                try NSMigrationManager(sourceModel: source, destinationModel: strictDestination).migrateStore(
                    from: strictURL, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: target, destinationType: NSSQLiteStoreType, destinationOptions: nil)
            }
            #expect(error?.code == NSValidationMultipleErrorsError)
            let details = error?.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            #expect(details.map(\.code) == [NSValidationMissingMandatoryPropertyError, NSValidationMissingMandatoryPropertyError])
            #expect(details.allSatisfy { $0.userInfo[NSValidationKeyErrorKey] as? String == "email" })
            #expect(details.allSatisfy { $0.userInfo[NSValidationObjectErrorKey] is String }, "the object is replaced by its description, as Apple's migration does")
            #expect(RecordingPolicy.log.withLock { $0 }.filter { $0.hasPrefix("validate") || $0.hasPrefix("end") } == [])
            #expect(!FileManager.default.fileExists(atPath: target.path))
        }
    }

    @Test func relationshipCountsAreValidated() throws {
        let package = try HierarchyMigrationModels.package(version2: HierarchyMigrationModels.version(2, tagMinimum: 2))
        let url = try HierarchyMigrationModels.makeVersion1Store(package)
        let source = try HierarchyMigrationModels.model(package, version: 1), destination = try HierarchyMigrationModels.model(package, version: 2)
        let error = #expect(throws: NSError.self) {
            try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, options: nil, with: nil,
                toDestinationURL: url.deletingLastPathComponent().appendingPathComponent("Out.sqlite"), destinationType: NSSQLiteStoreType, destinationOptions: nil)
        }
        // "Loops" and "Orphan" have one tag each.
        #expect(error?.code == NSValidationMultipleErrorsError)
        let details = error?.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
        #expect(details.map(\.code) == [NSValidationRelationshipLacksMinimumCountError, NSValidationRelationshipLacksMinimumCountError])
        #expect(details.allSatisfy { $0.userInfo[NSValidationKeyErrorKey] as? String == "tags" })
    }

    @Test func aFailedFinalSaveIsAMigrationErrorWithTheCause() throws {
        // Version 2 makes writer names unique; the store has two authors called Ada.
        let package = try MigrationTestModels.package(version2: MigrationTestModels.version2(uniqueWriterNames: true))
        let url = try LightweightMigrationTests.makeVersion1Store(package, duplicateNames: true)
        let source = try MigrationTestModels.model(package, version: 1), destination = try MigrationTestModels.model(package, version: 2)
        let target = url.deletingLastPathComponent().appendingPathComponent("Out.sqlite")
        let error = #expect(throws: NSError.self) {
            try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, options: nil, with: nil, toDestinationURL: target, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        }
        #expect(error?.code == NSMigrationError)
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSManagedObjectConstraintMergeError)
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    /// Runs `body` with the recording policy's log cleared, one test at a time (the log is shared).
    static let logLock = NSLock()
    static func withLog(_ body: () throws -> Void) throws {
        logLock.lock()
        defer { logLock.unlock() }
        RecordingPolicy.log.withLock { $0 = [] }
        try body()
    }
}
