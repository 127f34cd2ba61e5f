import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

/// The model cache of the stores OpenCoreData creates, and `cachedModelForPersistentStore(at:)` on good and bad files.
@Suite("SQLite store: Z_MODELCACHE")
struct ModelCacheStoreTests {
    static func libraryModel() throws -> NSManagedObjectModel {
        try NSManagedObjectModel(validatingContentsOf: try #require(Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld")))
    }

    static func createStore(_ model: NSManagedObjectModel) throws -> URL {
        let url = try TemporaryDirectory.make().appendingPathComponent("Store.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        try coordinator.remove(store)
        return url
    }

    static func execute(_ sql: String, in url: URL) throws {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open(url.path, &db) == SQLITE_OK, sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw NSError(domain: "ModelCacheStoreTests", code: 1, userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(db))])
        }
    }

    static func expectError(_ code: Int, _ body: () throws -> Void) {
        #expect { try body() } throws: { error in
            (error as NSError).domain == NSCocoaErrorDomain && (error as NSError).code == code
        }
    }

    @Test("a new store carries its model: the cache decodes to the model's hashes and structure")
    func newStoreHasCache() throws {
        let model = try Self.libraryModel()
        let url = try Self.createStore(model)
        let blob = try #require(try RawModelCache.blob(url), "a new store has a Z_MODELCACHE row")
        #expect(blob.count > 100)
        let cached = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url)
        let metadata = try RawStoreMetadata.read(url)
        #expect(cached.entityVersionHashesByName == metadata[NSStoreModelVersionHashesKey] as? [String: Data])
        let fresh = try Self.libraryModel()
        #expect(ModelComparison.differences(fresh, cached).isEmpty)
        // The cached model opens the store.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: cached)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
    }

    @Test("a model whose archive would not read back equal gets no cache; the store still works")
    func unarchivableDefaultMeansNoCache() throws {
        final class Opaque: NSObject, @unchecked Sendable {}  // @unchecked Sendable: no state
        let model = NSManagedObjectModel()
        let entity = NSEntityDescription()
        entity.name = "Thing"
        let attribute = NSAttributeDescription()
        attribute.name = "blob"
        attribute.attributeType = .transformableAttributeType
        attribute.defaultValue = Opaque()
        entity.properties = [attribute]
        model.entities = [entity]
        let url = try Self.createStore(model)
        #expect(try RawModelCache.blob(url) == nil)
        Self.expectError(NSPersistentStoreIncompatibleSchemaError) { _ = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url) }
    }

    @Test("bad files: missing 260, not SQLite 259, not a store or no cache 134020, damaged cache 4864")
    func badFiles() throws {
        let directory = try TemporaryDirectory.make()
        Self.expectError(NSFileReadNoSuchFileError) { _ = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: directory.appendingPathComponent("none.sqlite")) }
        let text = directory.appendingPathComponent("text.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: text)
        Self.expectError(NSFileReadCorruptFileError) { _ = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: text) }
        let plain = directory.appendingPathComponent("plain.sqlite")
        try Self.execute("CREATE TABLE t (x INTEGER)", in: plain)
        Self.expectError(NSPersistentStoreIncompatibleSchemaError) { _ = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: plain) }
        let url = try Self.createStore(try Self.libraryModel())
        try Self.execute("UPDATE Z_MODELCACHE SET Z_CONTENT = x'0011223344556677'", in: url)
        Self.expectError(4864) { _ = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url) }
        try Self.execute("DELETE FROM Z_MODELCACHE", in: url)
        Self.expectError(NSPersistentStoreIncompatibleSchemaError) { _ = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url) }
    }

    @Test("a 2009 store without Z_MODELCACHE (CoreDataBooks, fw 230) is reported as having no cache",
          .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func oldStoreWithoutCache() throws {
        let url = try Corpus.storeCopy("ooper-shlab__CoreDataBooks1.5-Swift__CoreDataBooks.CDBStore")
        #expect { _ = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url) } throws: { error in
            (error as NSError).code == NSPersistentStoreIncompatibleSchemaError && (error as NSError).localizedDescription.contains("no model cache")
        }
    }
}
