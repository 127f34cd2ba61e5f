import Foundation
import OpenCoreData
import Synchronization
import Testing

/// Models, scratch directories and result collection for the container tests.
enum ContainerTestSupport {
    /// The test target's `Library.xcdatamodeld` (versions "Library" and "Library 2", the current one).
    static var libraryPackageURL: URL {
        get throws { try #require(Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld")) }
    }

    /// Version "Library": `Book` (title, author) and `Author` (name, books).
    static func libraryV1() throws -> NSManagedObjectModel {
        try NSManagedObjectModel(validatingContentsOf: libraryPackageURL, versionName: "Library")
    }

    /// Version "Library 2": `Book` gains attributes, `Ebook` appears — its hashes differ from version 1's.
    static func libraryV2() throws -> NSManagedObjectModel {
        try NSManagedObjectModel(validatingContentsOf: libraryPackageURL, versionName: "Library 2")
    }

    /// A fresh directory under the temporary directory, removed by `remove`.
    static func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-container-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// A container of `model` with one in-memory store, loaded.
    static func inMemoryContainer(_ model: NSManagedObjectModel, name: String = "Library") throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: name, managedObjectModel: model)
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        let results = LoadResults()
        container.loadPersistentStores(completionHandler: results.record)
        let errors = results.all.compactMap(\.error)
        #expect(errors.isEmpty, "\(errors)")
        return container
    }

    /// A container of `model` with one SQLite store at `url`, loaded; the load results are returned too.
    static func sqliteContainer(_ model: NSManagedObjectModel, at url: URL, name: String = "Library") -> (NSPersistentContainer, [LoadResults.Load]) {
        let container = NSPersistentContainer(name: name, managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        let results = LoadResults()
        container.loadPersistentStores(completionHandler: results.record)
        return (container, results.all)
    }

    /// Inserts books with `titles` through `context` and saves, on the context's queue.
    static func insertBooks(_ titles: [String], into context: NSManagedObjectContext) throws {
        try context.performAndWait {
            for title in titles {
                NSEntityDescription.insertNewObject(forEntityName: "Book", into: context).setValue(title, forKey: "title")
            }
            try context.save()
        }
    }

    /// The titles of every book `context` fetches, sorted.
    static func bookTitles(in context: NSManagedObjectContext) throws -> [String] {
        try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).compactMap { $0.value(forKey: "title") as? String }.sorted()
        }
    }
}

/// Collects what `loadPersistentStores` reports, from any thread.
final class LoadResults: Sendable {
    struct Load: @unchecked Sendable {
        // @unchecked Sendable: the description is Sendable; the error is an NSError, read only.
        let description: NSPersistentStoreDescription
        let error: NSError?
    }

    private let loads = Mutex<[Load]>([])

    var all: [Load] { loads.withLock { $0 } }

    func record(_ description: NSPersistentStoreDescription, _ error: (any Error)?) {
        loads.withLock { $0.append(Load(description: description, error: error.map { $0 as NSError })) }
    }
}

/// A value shared with escaping closures (a `Mutex` cannot be captured by one). Guarded by a pthread mutex, which the
/// thread sanitizer sees (it cannot see `Mutex`'s futex and reports the guarded accesses as races; see `Locked`).
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `storage` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var storage: Value
    init(_ value: Value) { storage = value }
    var value: Value { lock.withLock { storage } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&storage) } }
}
