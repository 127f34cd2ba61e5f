import Foundation
import Testing

@testable import OpenCoreData

/// A store is opened only as the type its metadata names (`NSStoreType`), as Apple's coordinator checks for every
/// store: an SQLite file whose metadata says "Binary", an SQLite store added as a binary store and the reverse, a
/// binary store file that names another type, and custom atomic and incremental stores whose metadata names another
/// type all fail with `NSPersistentStoreTypeMismatchError` (134010, "The store type in the metadata does not match the
/// specified store type."), add no store, and leave the file as it was — also when automatic migration is asked for.
@Suite struct StoreTypeMismatchTests {
    /// Adds the file at `url` as `storeType`; expects Apple's type-mismatch error and the file unchanged.
    @discardableResult
    static func expectMismatch(_ url: URL, as storeType: String, model: NSManagedObjectModel = BatchModel.shared,
                               options: [AnyHashable: Any]? = nil, _ comment: Comment) throws -> NSError? {
        let before = try Data(contentsOf: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = #expect(throws: NSError.self, comment) {
            try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: options)
        }
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSPersistentStoreTypeMismatchError, "\(comment): \(String(describing: error))")
        #expect(error?.userInfo["reason"] as? String == "The store type in the metadata does not match the specified store type.", comment)
        #expect(error?.userInfo[NSFilePathErrorKey] as? String == url.path, comment)
        #expect(coordinator.persistentStores.isEmpty, comment)
        #expect(try Data(contentsOf: url) == before, "the file is left as it was: \(comment)")
        return error
    }

    /// An SQLite store of the batch model whose `Z_METADATA` names `type` as its store type.
    static func sqliteStore(namingType type: String) throws -> URL {
        let url = try TamperedStoreTests.makeStore()
        var metadata = try RawStoreMetadata.read(url)
        metadata[NSStoreTypeKey] = type
        try TamperedStoreTests.setMetadata(url, try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0))
        return url
    }

    @Test func anSQLiteStoreWhoseMetadataNamesAnotherTypeIsRefused() throws {
        for type in [NSBinaryStoreType, NSInMemoryStoreType, "OpenCoreDataTests.PlistAtomicStore"] {
            let url = try Self.sqliteStore(namingType: type)
            let error = try Self.expectMismatch(url, as: NSSQLiteStoreType, "SQLite store naming \(type)")
            #expect((error?.userInfo["metadata"] as? [String: Any])?[NSStoreTypeKey] as? String == type)
            // Before any migration: a model that would need one does not get to change the file either.
            let newer = BatchModel.make()
            let color = NSAttributeDescription()
            color.name = "color"
            color.attributeType = .stringAttributeType
            color.isOptional = true
            try #require(newer.entitiesByName["Item"]).properties += [color]
            try Self.expectMismatch(url, as: NSSQLiteStoreType, model: newer,
                                    options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true],
                                    "SQLite store naming \(type), automatic migration")
            #expect(try RawSQLite.rows(url.path, "SELECT count(*) FROM ZITEM") == [["5"]], "the rows are there")
        }
        // A store whose metadata has a non-string type.
        let url = try TamperedStoreTests.makeStore()
        var metadata = try RawStoreMetadata.read(url)
        metadata[NSStoreTypeKey] = 7
        try TamperedStoreTests.setMetadata(url, try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0))
        try Self.expectMismatch(url, as: NSSQLiteStoreType, "SQLite store naming the number 7")
        // Setting the type back makes the store open again: nothing else was touched.
        let fixed = try Self.sqliteStore(namingType: NSSQLiteStoreType)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: fixed, options: nil)
    }

    @Test func aStoreFileAddedAsAnotherTypeIsRefused() throws {
        // An SQLite store added as a binary store.
        let sqlite = try TamperedStoreTests.makeStore()
        let asBinary = try Self.expectMismatch(sqlite, as: NSBinaryStoreType, "SQLite store added as Binary")
        #expect((asBinary?.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSFileReadCorruptFileError, "the binary reader's refusal underneath")
        // A binary store added as an SQLite store.
        let binary = try BinaryStoreTests.saveAlice()
        let binaryURL = try #require(binary.storeURL)
        let asSQLite = try Self.expectMismatch(binaryURL, as: NSSQLiteStoreType, model: ConformanceModel.shared, "Binary store added as SQLite")
        #expect((asSQLite?.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSFileReadCorruptFileError)
        #expect(!FileManager.default.fileExists(atPath: binaryURL.path + "-wal"), "no SQLite journal was made next to it")
    }

    @Test func aBinaryStoreWhoseMetadataNamesAnotherTypeIsRefused() throws {
        let directory = try TemporaryStoreDirectory()
        for type: Any in [NSSQLiteStoreType, "Binary ", 1] {
            let root: [String: Any] = ["metadata": [NSStoreTypeKey: type, NSStoreUUIDKey: "B1B1B1B1-0000-0000-0000-000000000002"], "objects": [Any]()]
            let url = directory.url.appendingPathComponent("\(type).binarystore")
            try (BinaryStoreFile.magic + Data([0, 0, 0, 1]) + PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)).write(to: url)
            try Self.expectMismatch(url, as: NSBinaryStoreType, model: ConformanceModel.shared, "binary store naming \(type)")
        }
        // Without a type at all (Apple's coordinator refuses an atomic store's metadata without one the same way).
        let untyped = directory.url.appendingPathComponent("untyped.binarystore")
        let root: [String: Any] = ["metadata": [NSStoreUUIDKey: "B1B1B1B1-0000-0000-0000-000000000003"], "objects": [Any]()]
        try (BinaryStoreFile.magic + Data([0, 0, 0, 1]) + PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)).write(to: untyped)
        try Self.expectMismatch(untyped, as: NSBinaryStoreType, model: ConformanceModel.shared, "binary store without a type")
    }

    @Test func customStoresWhoseMetadataNamesAnotherTypeAreRefused() throws {
        // An atomic store whose file's metadata names the SQLite store.
        NSPersistentStoreCoordinator.registerStoreClass(PlistAtomicStore.self, type: .init(rawValue: PlistAtomicStore.typeName))
        let directory = try TemporaryStoreDirectory()
        let url = directory.url.appendingPathComponent("store.plist")
        let file: [String: Any] = ["metadata": [NSStoreTypeKey: NSSQLiteStoreType, NSStoreUUIDKey: "A70A70A7-0000-0000-0000-000000000001"], "records": [String: Any]()]
        try PropertyListSerialization.data(fromPropertyList: file, format: .binary, options: 0).write(to: url)
        try Self.expectMismatch(url, as: PlistAtomicStore.typeName, model: IncrementalStoreTests.model(), "atomic store naming SQLite")

        // An incremental store whose loadMetadata() names another type.
        NSPersistentStoreCoordinator.registerStoreClass(MislabelledStore.self, forStoreType: MislabelledStore.typeName)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: IncrementalStoreTests.model())
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: MislabelledStore.typeName, configurationName: nil, at: URL(fileURLWithPath: "/dev/null/mislabelled"), options: nil)
        }
        #expect(error?.code == NSPersistentStoreTypeMismatchError, "\(String(describing: error))")
        #expect((error?.userInfo["metadata"] as? [String: Any])?[NSStoreTypeKey] as? String == "Dictionary")
        #expect(coordinator.persistentStores.isEmpty)
    }
}

/// An incremental store whose metadata names another store type than the one it is registered as.
final class MislabelledStore: NSIncrementalStore, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    static let typeName = "OpenCoreDataTests.MislabelledStore"
    override var type: String { Self.typeName }
    override func loadMetadata() throws {
        metadata = [NSStoreTypeKey: "Dictionary", NSStoreUUIDKey: "MISLABELLED-1"]
    }
}
