import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

/// `destroyPersistentStore` and `replacePersistentStore` leave the files Apple's Core Data leaves. Apple's header:
/// "delete or truncate the target persistent store … SQLite stores will honor file locks, journal files, journaling
/// modes … It is not possible to unlink a database file safely out from underneath another thread or process, so this
/// API performs a truncation. Other stores will default to using NSFileManager." Observed (CDMoveDemo, CoreDataPlus):
/// replacing a store that is loaded removes it from the coordinator; after a destroy the file is still there (code
/// deletes it with `FileManager.removeItem` afterwards).
@Suite("Destroying and replacing stores leaves Apple's files")
struct DestroyReplaceStoreTests {
    /// A fresh SQLite store of ``HistoryModel`` (without history) holding notes with these titles, left open.
    static func sqliteStack(_ titles: [String], url: URL? = nil) throws -> HistoryStack {
        let stack = try HistoryStack(url: url, options: nil)
        let context = stack.context()
        try context.performAndWait {
            for title in titles { context.insertNote(title) }
            try context.save()
        }
        return stack
    }

    static func titles(_ coordinator: NSPersistentStoreCoordinator) throws -> [String] {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { try context.noteTitles() }
    }

    static func size(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    // MARK: Destroying SQLite stores

    @Test("destroying an open SQLite store removes it and empties its file, -wal and -shm in place; FileManager can delete them afterwards")
    func destroyEmptiesTheFilesInPlace() throws {
        let stack = try Self.sqliteStack((0..<300).map { "note \($0)" })
        let path = stack.url.path
        let uuid = try #require(stack.store.identifier)
        #expect(Self.exists(path + "-wal") && Self.exists(path + "-shm"))
        let sizeBefore = try #require(Self.size(path)) + (Self.size(path + "-wal") ?? 0)

        try stack.coordinator.destroyPersistentStore(at: stack.url, type: .sqlite)
        #expect(stack.coordinator.persistentStores.isEmpty)
        #expect(Self.exists(path))
        #expect(Self.exists(path + "-wal") && Self.exists(path + "-shm"))
        #expect(Self.size(path + "-wal") == 0)
        #expect(sizeBefore > 4 * 4096)
        #expect(try #require(Self.size(path)) <= 4096, "an empty database: one page")
        #expect(try RawSQL.value(stack.url, "SELECT count(*) FROM sqlite_master") == .integer(0))

        // Adding the store again makes a new, empty store in the same file.
        let store = try stack.coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: stack.url, options: nil)
        #expect(store.identifier != uuid)
        #expect(try Self.titles(stack.coordinator).isEmpty)
        try stack.coordinator.remove(store)

        // What apps do after destroying: delete the files.
        try FileManager.default.removeItem(atPath: path)
        for suffix in ["-wal", "-shm"] where Self.exists(path + suffix) { try FileManager.default.removeItem(atPath: path + suffix) }
        #expect(!Self.exists(path))
    }

    @Test("destroying a closed SQLite store leaves its file and creates no -wal or -shm that were not there")
    func destroyOfAClosedStore() throws {
        let stack = try Self.sqliteStack(["a", "b"])
        let path = stack.url.path
        try stack.coordinator.remove(stack.store)   // the last connection closes: SQLite deletes -wal and -shm
        #expect(!Self.exists(path + "-wal"))

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        try coordinator.destroyPersistentStore(at: stack.url, ofType: NSSQLiteStoreType, options: nil)
        #expect(Self.exists(path))
        #expect(!Self.exists(path + "-wal") && !Self.exists(path + "-shm"))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: stack.url, options: nil)
        #expect(try Self.titles(coordinator).isEmpty)
    }

    @Test("another coordinator on the destroyed file sees an empty database, not the old rows")
    func otherConnectionsSeeTheEmptiedStore() throws {
        let stack = try Self.sqliteStack(["kept?"])
        let other = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: stack.url, options: nil)
        #expect(try Self.titles(other) == ["kept?"])

        try stack.coordinator.destroyPersistentStore(at: stack.url, type: .sqlite)
        // Its tables are gone under it: fetching fails with an error (an unlinked file would still show the rows).
        #expect(throws: NSError.self) { _ = try Self.titles(other) }
    }

    @Test("a file that is not an SQLite database is truncated to an empty file, which opens as a new store")
    func destroyOfAFileThatIsNotADatabase() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Noise.sqlite")
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }).write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        #expect(throws: NSError.self) { try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil) }

        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: nil)
        #expect(Self.size(url.path) == 0)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        #expect(try Self.titles(coordinator).isEmpty)
    }

    @Test("destroying a store that does not exist throws NSFileNoSuchFileError (4), for SQLite and binary stores")
    func destroyingAMissingStoreThrows() throws {
        let directory = try TemporaryDirectory.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        for (type, name) in [(NSSQLiteStoreType, "Missing.sqlite"), (NSBinaryStoreType, "Missing.binary")] {
            let url = directory.appendingPathComponent(name)
            let error = thrownError { try coordinator.destroyPersistentStore(at: url, ofType: type, options: nil) }
            #expect(error?.domain == NSCocoaErrorDomain, "\(type)")
            #expect(error?.code == NSFileNoSuchFileError, "\(type)")
            #expect(error?.code == 4)
            #expect(!Self.exists(url.path))
        }
        let unknownType = thrownError { try coordinator.destroyPersistentStore(at: directory.appendingPathComponent("X"), ofType: "NoSuchType", options: nil) }
        #expect(unknownType?.code == NSPersistentStoreInvalidTypeError)
    }

    @Test("NSPersistentStoreForceDestroyOption truncates a store another connection is writing to")
    func forcedDestroyOverridesALock() throws {
        let stack = try Self.sqliteStack(["a"])
        try stack.coordinator.remove(stack.store)
        // Another connection holds the write lock.
        var db: OpaquePointer?
        #expect(sqlite3_open_v2(stack.url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        // Without the option the lock is waited for (here 0.2 s) and honoured.
        #expect(throws: NSError.self) {
            try coordinator.destroyPersistentStore(at: stack.url, type: .sqlite, options: [NSPersistentStoreTimeoutOption: 0.2])
        }
        #expect(try #require(Self.size(stack.url.path)) > 0)
        try coordinator.destroyPersistentStore(at: stack.url, type: .sqlite, options: [NSPersistentStoreTimeoutOption: 0.2, NSPersistentStoreForceDestroyOption: true])
        #expect(Self.size(stack.url.path) == 0)
        #expect(Self.exists(stack.url.path))
    }

    // MARK: Destroying other store types

    @Test("destroying a binary store deletes its file with FileManager, as Apple's does for stores other than SQLite")
    func destroyBinaryStore() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Notes.binary")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url, options: nil)
        #expect(Self.exists(url.path))
        try coordinator.destroyPersistentStore(at: url, type: .binary)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(!Self.exists(url.path))
        // Once gone, there is nothing to destroy.
        #expect(thrownError { try coordinator.destroyPersistentStore(at: url, type: .binary) }?.code == NSFileNoSuchFileError)
    }

    @Test("an in-memory store is removed by destroy and touches no file; it has no files to replace")
    func inMemoryStores() throws {
        let directory = try TemporaryDirectory.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        let url = directory.appendingPathComponent("Scratch")
        try Data("not a store".utf8).write(to: url)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: url, options: nil)
        try coordinator.destroyPersistentStore(at: url, type: .inMemory)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(try Data(contentsOf: url) == Data("not a store".utf8))

        let source = directory.appendingPathComponent("Source")
        try Data("source".utf8).write(to: source)
        let error = thrownError {
            try coordinator.replacePersistentStore(at: url, withPersistentStoreFrom: source, type: .inMemory)
        }
        #expect(error?.code == NSPersistentStoreOperationError)
        #expect(try Data(contentsOf: url) == Data("not a store".utf8))
    }

    // MARK: Replacing

    @Test("replacing an open SQLite store removes it from the coordinator and leaves a copy of the source; the source stays as it was")
    func replaceAnOpenSQLiteStore() throws {
        let source = try Self.sqliteStack(["from", "source"])   // open, with its WAL
        let sourceUUID = try #require(source.store.identifier)
        let destination = try Self.sqliteStack(["old"], url: source.url.deletingLastPathComponent().appendingPathComponent("Destination.sqlite"))

        try destination.coordinator.replacePersistentStore(at: destination.url, destinationOptions: nil, withPersistentStoreFrom: source.url,
                                                           sourceOptions: nil, ofType: NSSQLiteStoreType)
        #expect(destination.coordinator.persistentStores.isEmpty)
        #expect(try Self.titles(source.coordinator) == ["from", "source"])
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: source.url)[NSStoreUUIDKey] as? String == sourceUUID)

        // The destination's files hold the copy (the source's store, UUID included); adding it again shows it.
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: destination.url)
        #expect(metadata[NSStoreUUIDKey] as? String == sourceUUID)
        try destination.coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: destination.url, options: nil)
        #expect(try Self.titles(destination.coordinator) == ["from", "source"])
    }

    @Test("replacing with a missing source throws NSFileReadNoSuchFileError and leaves the destination alone")
    func replaceWithAMissingSource() throws {
        let destination = try Self.sqliteStack(["stays"])
        let missing = destination.url.deletingLastPathComponent().appendingPathComponent("Missing.sqlite")
        for type in [NSSQLiteStoreType, NSBinaryStoreType] {
            let error = thrownError {
                try NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared).replacePersistentStore(
                    at: destination.url, destinationOptions: nil, withPersistentStoreFrom: missing, sourceOptions: nil, ofType: type)
            }
            #expect(error?.code == NSFileReadNoSuchFileError, "\(type)")
        }
        #expect(try Self.titles(destination.coordinator) == ["stays"])
    }

    @Test("replacing an open binary store removes it from the coordinator and copies the source file")
    func replaceAnOpenBinaryStore() throws {
        let directory = try TemporaryDirectory.make()
        let sourceURL = directory.appendingPathComponent("Source.binary"), destinationURL = directory.appendingPathComponent("Destination.binary")
        for (url, title) in [(sourceURL, "source"), (destinationURL, "destination")] {
            let stack = try HistoryStack(url: url, options: nil, type: NSBinaryStoreType)
            let context = stack.context()
            try context.performAndWait {
                context.insertNote(title)
                try context.save()
            }
            if url == sourceURL { try stack.coordinator.remove(stack.store) }
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        let open = try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: destinationURL, options: nil)
        try coordinator.replacePersistentStore(at: destinationURL, withPersistentStoreFrom: sourceURL, type: .binary)
        #expect(!coordinator.persistentStores.contains { $0 === open })
        #expect(try Data(contentsOf: destinationURL) == Data(contentsOf: sourceURL))
        try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: destinationURL, options: nil)
        #expect(try Self.titles(coordinator) == ["source"])
    }
}
