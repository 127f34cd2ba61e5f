import Foundation
import Testing

@testable import OpenCoreData

/// `NSPersistentStoreDeferredLightweightMigrationOptionKey`, `finishDeferredLightweightMigration()` and
/// `finishDeferredLightweightMigrationTask()`: a lightweight migration that opens the store at once and leaves its
/// index building and old-table dropping for later.
@Suite struct DeferredLightweightMigrationTests {
    /// Version 2 of the migration test model with an indexed attribute (`Writer.country`) and a two-property fetch
    /// index on Book (`byTitle`).
    static func indexedPackage() throws -> URL {
        let second = MigrationTestModels.version2()
            .replacingOccurrences(of: #"<attribute name="country" attributeType="String" defaultValueString="XX"/>"#,
                                  with: #"<attribute name="country" attributeType="String" defaultValueString="XX" indexed="YES"/>"#)
            .replacingOccurrences(of: #"<relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/>"#,
                                  with: #"<relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/><fetchIndex name="byTitle"><fetchIndexElement property="title" type="Binary" order="ascending"/><fetchIndexElement property="pages" type="Binary" order="descending"/></fetchIndex>"#)
        #expect(second.contains(#"indexed="YES""#) && second.contains("byTitle"))
        return try MigrationTestModels.package(version2: second)
    }

    static let newIndexes: Set<String> = ["Z_Writer_country", "Z_Book_byTitle"]
    static let oldTables: Set<String> = ["ZAUTHOR", "ZBOOK"]

    static func options(deferred: Bool?) -> [AnyHashable: Any] {
        var options = LightweightMigrationTests.automatic
        if let deferred { options[NSPersistentStoreDeferredLightweightMigrationOptionKey] = deferred }
        return options
    }

    struct FileState {
        var indexes: Set<String>
        var tables: Set<String>
        var pendingOnDisk: Bool
        /// Old-model tables left to drop (renamed out of the way) plus new indexes not built yet.
        var pendingUnits: Int { tables.filter { $0.hasPrefix("Z_OCDOLD_") }.count + DeferredLightweightMigrationTests.newIndexes.subtracting(indexes).count }
        var hasOldTables: Bool { !tables.filter { $0.hasPrefix("Z_OCDOLD_") }.isEmpty }
    }

    static func fileState(_ url: URL) throws -> FileState {
        let database = try RawDatabase(path: url.path)
        func names(_ type: String) throws -> Set<String> {
            Set(try database.rows("SELECT name FROM sqlite_master WHERE type = '\(type)'").compactMap { $0[0].string })
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        return FileState(indexes: try names("index"), tables: try names("table"),
                         pendingOnDisk: (metadata[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool) == true)
    }

    static func open(_ url: URL, _ package: URL, deferred: Bool?) throws -> (NSPersistentStoreCoordinator, NSPersistentStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try #require(NSManagedObjectModel(contentsOf: package)))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options(deferred: deferred))
        return (coordinator, store)
    }

    static func counts(_ coordinator: NSPersistentStoreCoordinator) throws -> [String: Int] {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var result: [String: Int] = [:]
        for entity in ["Writer", "Book", "Tag"] { result[entity] = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity)) }
        let ada = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Writer")).first { $0.value(forKey: "fullName") as? String == "Ada" }
        result["adaBooks"] = (ada?.value(forKey: "books") as? Set<NSManagedObject>)?.count ?? -1
        return result
    }

    static let expectedCounts = ["Writer": 2, "Book": 3, "Tag": 2, "adaBooks": 2]

    @Test func optionKeyHasApplesValue() {
        #expect(NSPersistentStoreDeferredLightweightMigrationOptionKey == "NSPersistentStoreDeferredLightweightMigrationOptionKey")
    }

    @Test func deferredMigrationOpensAtOnceAndFinishBuildsTheIndexes() throws {
        let package = try Self.indexedPackage()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let (coordinator, store) = try Self.open(url, package, deferred: true)
        #expect(try Self.counts(coordinator) == Self.expectedCounts)
        var state = try Self.fileState(url)
        #expect(state.indexes.isDisjoint(with: Self.newIndexes))
        #expect(state.hasOldTables)
        #expect(state.pendingOnDisk)
        #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true)
        // The store is usable while work is pending: a save goes through.
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Publisher", into: context).setValue("Acme", forKey: "name")
        try context.save()

        try coordinator.finishDeferredLightweightMigration()
        state = try Self.fileState(url)
        #expect(Self.newIndexes.isSubset(of: state.indexes))
        #expect(!state.hasOldTables)
        #expect(!state.pendingOnDisk)
        #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
        #expect(try Self.counts(coordinator) == Self.expectedCounts)
        // Nothing left: calling again does nothing.
        try coordinator.finishDeferredLightweightMigration()
        try coordinator.finishDeferredLightweightMigrationTask()
    }

    @Test func taskVariantDoesOneUnitAtATime() throws {
        let package = try Self.indexedPackage()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        let (coordinator, store) = try Self.open(url, package, deferred: true)
        var state = try Self.fileState(url)
        var units = state.pendingUnits
        #expect(units >= Self.newIndexes.count + Self.oldTables.count)
        var steps = 0
        while coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true && steps < 100 {
            try coordinator.finishDeferredLightweightMigrationTask()
            steps += 1
            state = try Self.fileState(url)
            // Each task removes at most one pending unit (other indexes of the model are tasks too).
            #expect(state.pendingUnits >= units - 1)
            units = state.pendingUnits
        }
        #expect(steps > Self.newIndexes.count + Self.oldTables.count - 1)
        #expect(state.pendingUnits == 0)
        #expect(!state.pendingOnDisk)
        #expect(try Self.counts(coordinator) == Self.expectedCounts)
    }

    @Test func pendingWorkSurvivesReopeningAndFinishesLater() throws {
        let package = try Self.indexedPackage()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        do {
            let (coordinator, store) = try Self.open(url, package, deferred: true)
            try coordinator.finishDeferredLightweightMigrationTask()
            try coordinator.remove(store)
        }
        let (coordinator, store) = try Self.open(url, package, deferred: true)
        let state = try Self.fileState(url)
        #expect(state.pendingOnDisk)
        #expect(state.pendingUnits > 0)
        #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true)
        #expect(try Self.counts(coordinator) == Self.expectedCounts)
        try coordinator.finishDeferredLightweightMigration()
        let finished = try Self.fileState(url)
        #expect(finished.pendingUnits == 0 && !finished.pendingOnDisk)
    }

    @Test func addingWithoutTheOptionFinishesPendingWork() throws {
        let package = try Self.indexedPackage()
        let url = try LightweightMigrationTests.makeVersion1Store(package)
        do {
            let (coordinator, store) = try Self.open(url, package, deferred: true)
            try coordinator.remove(store)
        }
        #expect(try Self.fileState(url).pendingOnDisk)
        let (coordinator, store) = try Self.open(url, package, deferred: nil)
        let state = try Self.fileState(url)
        #expect(state.pendingUnits == 0 && !state.pendingOnDisk)
        #expect(Self.newIndexes.isSubset(of: state.indexes))
        #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
        #expect(try Self.counts(coordinator) == Self.expectedCounts)
    }

    @Test func withoutTheOptionIndexesAreBuiltAtOnce() throws {
        for deferred in [nil, false] as [Bool?] {
            let package = try Self.indexedPackage()
            let url = try LightweightMigrationTests.makeVersion1Store(package)
            let (coordinator, store) = try Self.open(url, package, deferred: deferred)
            let state = try Self.fileState(url)
            #expect(Self.newIndexes.isSubset(of: state.indexes))
            #expect(!state.hasOldTables && !state.pendingOnDisk)
            #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
            #expect(try Self.counts(coordinator) == Self.expectedCounts)
        }
    }

    @Test func aLaterMigrationOverPendingWorkSucceeds() throws {
        let second = try Self.indexedPackage()
        let url = try LightweightMigrationTests.makeVersion1Store(second)
        do {
            let (coordinator, store) = try Self.open(url, second, deferred: true)
            try coordinator.remove(store)
        }
        // Version 3 adds Publisher.city: the next migration reuses the old-table names the pending work still holds.
        let third = try MigrationTestModels.package(version2: MigrationTestModels.version2(), version3: MigrationTestModels.version3())
        let (coordinator, _) = try Self.open(url, third, deferred: nil)
        let state = try Self.fileState(url)
        #expect(!state.hasOldTables && !state.pendingOnDisk)
        #expect(try Self.counts(coordinator) == Self.expectedCounts)
    }
}
