import Foundation
import OpenSwiftData
import Synchronization

// A custom data store as Apple's WWDC24 session builds one ("Create a custom data store with SwiftData"): the whole
// file is read for each fetch and written for each save, and filtering and sorting are left to the context. Its
// calls are recorded so the tests can see what the context asked.

@Model final class Voyage {
    var name: String
    var days: Int
    var start: Date
    var rating: Double?
    @Relationship(deleteRule: .cascade, inverse: \Port.voyage) var ports: [Port] = []

    init(name: String, days: Int, start: Date = Date(timeIntervalSince1970: 0), rating: Double? = nil) {
        self.name = name
        self.days = days
        self.start = start
        self.rating = rating
    }
}

@Model final class Port {
    var name: String
    var voyage: Voyage?

    init(name: String) { self.name = name }
}

/// What a test store saw: fetch descriptors' shapes, save request sizes, editing states.
final class StoreLog: Sendable {
    struct Fetch: Sendable {
        let entity: String
        let hasPredicate: Bool
        let sortCount: Int
        let limit: Int?
        let author: String?
    }
    let fetches = Mutex<[Fetch]>([])
    let saves = Mutex<[(inserted: Int, updated: Int, deleted: Int, author: String?)]>([])
    let states = Mutex<[(event: String, id: UUID)]>([])
}

final class JSONStoreConfiguration: DataStoreConfiguration {
    typealias Store = JSONStore
    var name: String
    var schema: Schema?
    var fileURL: URL
    /// Where the store records what it is asked.
    let log: StoreLog
    /// Whether `validate()` throws.
    let invalid: Bool

    init(name: String = "JSONStore", schema: Schema? = nil, fileURL: URL, log: StoreLog = StoreLog(), invalid: Bool = false) {
        self.name = name
        self.schema = schema
        self.fileURL = fileURL
        self.log = log
        self.invalid = invalid
    }

    func validate() throws {
        if invalid { throw CocoaError(.fileWriteInvalidFileName) }
    }

    static func == (lhs: JSONStoreConfiguration, rhs: JSONStoreConfiguration) -> Bool { lhs.name == rhs.name && lhs.fileURL == rhs.fileURL }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

final class JSONStore: DataStore {
    typealias Configuration = JSONStoreConfiguration
    typealias Snapshot = DefaultSnapshot

    let configuration: JSONStoreConfiguration
    let schema: Schema
    let identifier: String

    init(_ configuration: JSONStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        schema = configuration.schema!
        identifier = configuration.fileURL.lastPathComponent
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        configuration.log.fetches.withLock {
            $0.append(.init(entity: Schema.entityName(for: T.self), hasPredicate: request.descriptor.predicate != nil,
                            sortCount: request.descriptor.sortBy.count, limit: request.descriptor.fetchLimit, author: request.editingState.author))
        }
        if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
        let all = try read()
        let own = all.values.filter { $0.persistentIdentifier.entityName == Schema.entityName(for: T.self) }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: own, relatedSnapshots: all)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        configuration.log.saves.withLock {
            $0.append((request.inserted.count, request.updated.count, request.deleted.count, request.editingState.author))
        }
        var all = try read()
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            let id = try PersistentIdentifier.identifier(for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: UUID())
            remapped[snapshot.persistentIdentifier] = id
            all[id] = snapshot.copy(persistentIdentifier: id)
        }
        for snapshot in request.updated { all[snapshot.persistentIdentifier] = snapshot }
        for snapshot in request.deleted { all[snapshot.persistentIdentifier] = nil }
        try write(all.mapValues { $0.copy(persistentIdentifier: $0.persistentIdentifier, remappedIdentifiers: remapped) })
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }

    func erase() throws {
        try write([:])
    }

    func initializeState(for editingState: EditingState) {
        configuration.log.states.withLock { $0.append(("initialize", editingState.id)) }
    }

    func invalidateState(for editingState: EditingState) {
        configuration.log.states.withLock { $0.append(("invalidate", editingState.id)) }
    }

    private func read() throws -> [PersistentIdentifier: DefaultSnapshot] {
        guard FileManager.default.fileExists(atPath: configuration.fileURL.path) else { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let snapshots = try decoder.decode([DefaultSnapshot].self, from: Data(contentsOf: configuration.fileURL))
        return Dictionary(snapshots.map { ($0.persistentIdentifier, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private func write(_ snapshots: [PersistentIdentifier: DefaultSnapshot]) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(Array(snapshots.values)).write(to: configuration.fileURL)
    }
}

/// A fresh file in a temporary directory.
func temporaryStoreURL(_ name: String) -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("OpenSwiftDataTests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent(name)
}
