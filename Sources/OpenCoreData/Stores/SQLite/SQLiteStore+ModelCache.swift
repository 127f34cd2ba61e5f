// The store's copy of the model that wrote it: `Z_MODELCACHE.Z_CONTENT`, the raw-DEFLATE compressed keyed archive
// of the model (research/store-format.md §2.3).

import Foundation

extension SQLiteStore {
    /// Writes the model cache of a new store — only when the archive decodes back to a model equal to `model`
    /// (`ModelComparison`), so that a store never carries a cache that misdescribes it. A model with parts the
    /// archive cannot hold (a transformable attribute's default value of an app class, block predicates) gets no
    /// cache, as stores of older Core Data versions have none. Whether Apple's Core Data reads the caches written
    /// here is not verified (DEVIATIONS.md).
    func writeModelCache(for model: NSManagedObjectModel) throws {
        try Self.writeModelCache(for: model, on: connection)
    }

    /// Writes the model cache row on `connection` (see `writeModelCache(for:)`); used by migrations too.
    static func writeModelCache(for model: NSManagedObjectModel, on connection: SQLiteConnection) throws {
        guard let archive = try? CompiledModelWriter.archive(model),
              let decoded = try? CompiledModelReader.model(fromArchive: archive) else { return }
        decoded.freeze()
        guard ModelComparison.differences(model, decoded).isEmpty else { return }
        let statement = try connection.prepare("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)")
        try statement.bind(Deflate.deflate(archive), at: 1)
        try statement.execute()
    }

    /// The model decoded from the model cache of the store open on `connection`; nil when the store has none (no
    /// `Z_MODELCACHE` table or an empty one). Throws `NSCoderReadCorruptError` (4864) when the cache cannot be decoded.
    static func cachedModel(on connection: SQLiteConnection) throws -> NSManagedObjectModel? {
        guard try connection.fetchValue("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_MODELCACHE'") == .integer(1),
            let row = try connection.fetchAll("SELECT Z_CONTENT FROM Z_MODELCACHE").first, case .blob(let blob) = row[0]
        else { return nil }
        return try CompiledModelReader.model(fromModelCache: blob)
    }

    /// The model decoded from the model cache of the store file at `url`, opened read-only.
    ///
    /// Errors (NSCocoaErrorDomain): `NSFileReadNoSuchFileError` (260) when there is no file,
    /// `NSFileReadCorruptFileError` (259) when it is not an SQLite database, `NSPersistentStoreIncompatibleSchemaError`
    /// (134020) when it is not a Core Data store or has no model cache, `NSCoderReadCorruptError` (4864) when the cache
    /// cannot be decoded.
    static func cachedModel(at url: URL) throws -> NSManagedObjectModel {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "No store file at \(url.path)", userInfo: [NSFilePathErrorKey: url.path])
        }
        let connection: SQLiteConnection
        let rows: [[SQLiteValue]]
        do {
            connection = try SQLiteConnection(path: url.path, configuration: .init(mode: .readOnly))
            defer { connection.close() }
            let tables = Set(try connection.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { row -> String? in
                if case .text(let name) = row[0] { return name }
                return nil
            })
            guard tables.contains("Z_METADATA") else {
                throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The file at \(url.path) is not a Core Data store (no Z_METADATA table)",
                                         userInfo: [NSFilePathErrorKey: url.path])
            }
            guard tables.contains("Z_MODELCACHE") else {
                throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store at \(url.path) has no model cache (no Z_MODELCACHE table: written by Core Data before 2013)",
                                         userInfo: [NSFilePathErrorKey: url.path])
            }
            rows = try connection.fetchAll("SELECT Z_CONTENT FROM Z_MODELCACHE")
        } catch let error as NSError where error.code == NSSQLiteError {
            throw CoreDataError.make(NSFileReadCorruptFileError, "The file at \(url.path) is not an SQLite database or is corrupt (\(error.localizedDescription))",
                                     userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
        guard let row = rows.first, case .blob(let blob) = row[0] else {
            throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store at \(url.path) has an empty model cache", userInfo: [NSFilePathErrorKey: url.path])
        }
        let model = try CompiledModelReader.model(fromModelCache: blob)
        model.sourceURL = url
        return model
    }
}

extension NSPersistentStoreCoordinator {
    /// The model that created the store at `url`, decoded from the copy Core Data keeps in the store
    /// (`Z_MODELCACHE`) — to open or migrate a store whose source model is no longer at hand.
    ///
    /// ```swift
    /// let model = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: storeURL)
    /// model.entityVersionHashesByName == metadata[NSStoreModelVersionHashesKey] as? [String: Data]  // true
    /// ```
    ///
    /// Errors: see `SQLiteStore.cachedModel(at:)` (missing file 260, not SQLite 259, no cache 134020, damaged cache 4864).
    public class func cachedModelForPersistentStore(at url: URL, options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectModel {
        try SQLiteStore.cachedModel(at: url)
    }
}
