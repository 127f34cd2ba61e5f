import Logging
@_spi(OpenSwiftData) import OpenCoreDataSupport

/// The section cache of fetched results controllers, as Apple's documentation describes it: under a cache name the
/// controller keeps the section and ordering information it computed (here: the section names and sizes and the objects'
/// URIs, in order) so that a later controller with the same name and configuration can skip the fetch.
///
/// A cache is used only if the entity name, the entity's version hash, the sort descriptors, the section key path (and
/// here also the predicate, the fetch options and the stores' identifiers) match the ones stored — otherwise it is
/// deleted and recomputed — and if the stores have not changed since it was written (Apple compares the modification
/// dates of the cache file and the store file; here the modification dates and sizes of the store file and its
/// write-ahead log are recorded in the cache, and for in-memory stores a fingerprint of their rows). It is rewritten
/// whenever the controller's results change while its context has no unsaved changes, so that a cache never records
/// a state that was not saved.
///
/// Caches live in `$XDG_CACHE_HOME` (or `~/.cache`) `/<application>/.CoreDataCaches/SectionInfoCaches/<name>/sectionInfo`
/// (Apple documents only "a private directory"; the folder names follow the ones Core Data is seen to create in an app's
/// `Library/Caches`); for in-memory stores only in memory, for the life of the process. Results of stores that are
/// neither in a file nor in memory are not cached.
enum FetchedResultsCache {
    static let logger = Logger(label: "OpenCoreData.NSFetchedResultsController")

    /// What a cache must match to be used.
    struct Configuration: Codable, Equatable, Sendable {
        var entityName: String
        var entityVersionHash: Data
        var predicateFormat: String?
        var sortDescriptors: [String]
        var sectionNameKeyPath: String?
        var includesSubentities: Bool
        var includesPendingChanges: Bool
        var fetchLimit: Int
        var fetchOffset: Int
        var storeIdentifiers: [String]
    }

    struct Section: Codable, Equatable, Sendable {
        var name: String
        var count: Int
    }

    /// The contents of one cache.
    struct Record: Codable, Equatable, Sendable {
        static let currentFormat = 2
        var format = Record.currentFormat
        var configuration: Configuration
        var sections: [Section]
        var objectURIs: [String]
        /// The state of the stores the results were computed from (see `storeToken(for:)`).
        var storeToken: String
    }

    /// The configuration of a controller's request, or nil when it cannot be cached (comparator sort descriptors,
    /// block predicates, no coordinator).
    static func configuration<T>(for request: NSFetchRequest<T>, sectionNameKeyPath: String?, context: NSManagedObjectContext) -> Configuration? {
        guard let coordinator = context.persistentStoreCoordinator else { return nil }
        let model = coordinator.managedObjectModel
        guard let entity = request.entity.flatMap({ $0.owningModel === model ? $0 : model.entitiesByName[$0.name ?? ""] })
            ?? request.entityName.flatMap({ model.entitiesByName[$0] }), let entityName = entity.name
        else { return nil }
        var sorts: [String] = []
        for descriptor in request.sortDescriptors ?? [] {
            guard let key = descriptor.key, let selector = descriptor.selector else { return nil }
            sorts.append("\(key) \(descriptor.ascending ? "ascending" : "descending") \(selector.name)")
        }
        let format = request.predicate?.predicateFormat
        if let format, format.contains("BLOCKPREDICATE") || format.contains("BLOCK") { return nil }
        return Configuration(
            entityName: entityName, entityVersionHash: entity.versionHash, predicateFormat: format, sortDescriptors: sorts,
            sectionNameKeyPath: sectionNameKeyPath, includesSubentities: request.includesSubentities,
            includesPendingChanges: request.includesPendingChanges, fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset,
            storeIdentifiers: coordinator.persistentStores.compactMap { $0.identifier }.sorted())
    }

    /// Whether caches for this coordinator stay in memory: one of its stores is an in-memory store.
    static func isMemoryOnly(_ coordinator: NSPersistentStoreCoordinator) -> Bool {
        coordinator.persistentStores.contains { $0 is MemoryResidentStore }
    }

    /// What identifies the current contents of the coordinator's stores: for a store in a file, the modification date
    /// and size of the file and of its write-ahead log; for an in-memory store, a fingerprint of every row's ID, version
    /// and to-many members. Nil when a store has neither (such results are not cached).
    static func storeToken(for coordinator: NSPersistentStoreCoordinator) -> String? {
        var parts: [String] = []
        for store in coordinator.persistentStores.sorted(by: { ($0.identifier ?? "") < ($1.identifier ?? "") }) {
            if let memory = store as? MemoryResidentStore {
                let fingerprint = coordinator.withLock { memory.contentFingerprint() }
                parts.append("\(store.identifier ?? ""):\(fingerprint)")
            } else if let url = store.url, url.isFileURL {
                var part = store.identifier ?? ""
                for path in [url.path, url.path + "-wal"] {
                    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                    let date = (attributes?[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate
                    let size = (attributes?[.size] as? NSNumber)?.int64Value
                    part += ":\(date.map { "\($0)" } ?? "-")/\(size.map { "\($0)" } ?? "-")"
                }
                parts.append(part)
            } else {
                return nil
            }
        }
        return parts.joined(separator: "|")
    }

    // MARK: Reading and writing

    /// The record stored under `name` if it is valid for `configuration` and the stores are unchanged since it was
    /// written; a record for another configuration (or unreadable) is deleted.
    static func load(name: String, configuration: Configuration, coordinator: NSPersistentStoreCoordinator) -> Record? {
        let record: Record?
        if isMemoryOnly(coordinator) {
            record = MemoryCaches.shared.record(named: name)
        } else if let data = FileManager.default.contents(atPath: fileURL(forName: name).path) {
            record = try? PropertyListDecoder().decode(Record.self, from: data)
            if record == nil { delete(name: name) }
        } else {
            record = nil
        }
        guard let record else { return nil }
        guard record.format == Record.currentFormat, record.configuration == configuration else {
            logger.debug("Fetched results cache '\(name)' does not match the controller's configuration; recomputing it.")
            delete(name: name)
            return nil
        }
        guard let token = storeToken(for: coordinator), token == record.storeToken else {
            logger.debug("The stores changed since the fetched results cache '\(name)' was written; recomputing it.")
            return nil
        }
        return record
    }

    /// Stores `record` under `name` (in memory for in-memory stores); failures are logged and otherwise ignored.
    static func store(_ record: Record, name: String, coordinator: NSPersistentStoreCoordinator) {
        if isMemoryOnly(coordinator) {
            MemoryCaches.shared.set(record, named: name)
            return
        }
        let file = fileURL(forName: name)
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            try encoder.encode(record).write(to: file, options: .atomic)
        } catch {
            logger.debug("Could not write the fetched results cache '\(name)' to \(file.path): \(error)")
        }
    }

    /// The record stored under `name`, wherever it is, without checking it.
    static func storedRecord(name: String) -> Record? {
        if let record = MemoryCaches.shared.record(named: name) { return record }
        guard let data = FileManager.default.contents(atPath: fileURL(forName: name).path) else { return nil }
        return try? PropertyListDecoder().decode(Record.self, from: data)
    }

    /// Deletes the cache named `name`, or every cache when nil (`memory` and `directory` are the process's caches;
    /// tests pass their own, as deleting every cache of the process would delete those of concurrent tests).
    static func delete(name: String?, memory: MemoryCaches = .shared, directory: URL = directory()) {
        if let name {
            memory.remove(named: name)
            try? FileManager.default.removeItem(at: fileURL(forName: name, in: directory).deletingLastPathComponent())
        } else {
            memory.removeAll()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    // MARK: Where caches live

    /// `$XDG_CACHE_HOME` (when absolute) or `~/.cache`, then the application's folder, then Apple's folder names.
    static func directory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let cacheHome = environment["XDG_CACHE_HOME"], cacheHome.hasPrefix("/") {
            base = URL(fileURLWithPath: cacheHome, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        }
        let application = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        return base.appendingPathComponent(application.isEmpty ? "OpenCoreData" : application, isDirectory: true)
            .appendingPathComponent(".CoreDataCaches/SectionInfoCaches", isDirectory: true)
    }

    static func fileURL(forName name: String, in directory: URL = directory()) -> URL {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_. ")
        var folder = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "cache"
        if folder.isEmpty || folder == "." || folder == ".." { folder = "%" + folder }
        return directory.appendingPathComponent(folder, isDirectory: true).appendingPathComponent("sectionInfo")
    }
}

/// The caches of controllers on in-memory stores, for the life of the process.
final class MemoryCaches: Sendable {
    static let shared = MemoryCaches()

    init() {}

    private let records = Locked<[String: FetchedResultsCache.Record]>([:])

    func record(named name: String) -> FetchedResultsCache.Record? { records.withLock { $0[name] } }
    func set(_ record: FetchedResultsCache.Record, named name: String) { records.withLock { $0[name] = record } }
    func remove(named name: String) { _ = records.withLock { $0.removeValue(forKey: name) } }
    func removeAll() { records.withLock { $0.removeAll() } }
}
