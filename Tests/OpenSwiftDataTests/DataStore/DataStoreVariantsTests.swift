import Foundation
import OpenCoreData
import OpenSwiftData
import Synchronization
import Testing

// Stores that differ from the WWDC sample: one with its own snapshot type, one that filters and sorts itself and
// changes values as it saves, and Core Data's own store through the `DataStore` interface.

/// A snapshot type of a store's own, encoded with `DataStoreSnapshotCodingKey` as Apple's key space says.
struct RowSnapshot: DataStoreSnapshot {
    let persistentIdentifier: PersistentIdentifier
    var name: String
    var days: Int
    var ports: [PersistentIdentifier]

    init(persistentIdentifier: PersistentIdentifier, name: String, days: Int, ports: [PersistentIdentifier]) {
        self.persistentIdentifier = persistentIdentifier
        self.name = name
        self.days = days
        self.ports = ports
    }

    init(from backingData: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData]) {
        let voyage = backingData as! any BackingData<Voyage>
        persistentIdentifier = backingData.persistentModelID!
        name = voyage.getValue(forKey: \.name)
        days = voyage.getValue(forKey: \.days)
        ports = voyage.getValue(forKey: \.ports).map(\.persistentModelID)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        persistentIdentifier = try container.decode(PersistentIdentifier.self, forKey: .persistentIdentifier)
        name = try container.decode(String.self, forKey: .modeledProperty("name"))
        days = try container.decode(Int.self, forKey: .modeledProperty("days"))
        ports = try container.decode([PersistentIdentifier].self, forKey: .modeledProperty("ports"))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        try container.encode(persistentIdentifier, forKey: .persistentIdentifier)
        try container.encode(name, forKey: .modeledProperty("name"))
        try container.encode(days, forKey: .modeledProperty("days"))
        try container.encode(ports, forKey: .modeledProperty("ports"))
    }

    func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?) -> RowSnapshot {
        RowSnapshot(persistentIdentifier: persistentIdentifier, name: name, days: days, ports: ports.map { remappedIdentifiers?[$0] ?? $0 })
    }
}

/// A store in memory (shared by the configurations of one test) of `Voyage`s only, with its own snapshot type. It
/// filters by name and sorts by days itself, and saves names trimmed of spaces (telling the context so).
final class RowStoreConfiguration: DataStoreConfiguration {
    typealias Store = RowStore
    var name = "rows"
    var schema: Schema?
    let rows = Mutex<[PersistentIdentifier: RowSnapshot]>([:])
    let keys = Atomic<Int>(0)
    let descriptors = Mutex<[String]>([])
    static func == (lhs: RowStoreConfiguration, rhs: RowStoreConfiguration) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

final class RowStore: DataStore {
    typealias Configuration = RowStoreConfiguration
    typealias Snapshot = RowSnapshot
    let configuration: RowStoreConfiguration
    let schema: Schema
    let identifier = "rows"

    init(_ configuration: RowStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        schema = configuration.schema!
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, RowSnapshot> {
        guard T.self == Voyage.self else { return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: []) }
        var rows = Array(configuration.rows.withLock { $0.values })
        if let predicate = request.descriptor.predicate.map({ $0 as Any }) as? Predicate<Voyage> {
            // Evaluates the predicate on a model made for the purpose: this store knows its one model class.
            rows = try rows.filter { row in
                let probe = Voyage(name: row.name, days: row.days)
                return try predicate.evaluate(probe)
            }
        }
        rows.sort { $0.days < $1.days }
        configuration.descriptors.withLock { $0.append("predicate: \(request.descriptor.predicate != nil), sorts: \(request.descriptor.sortBy.count)") }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: rows)
    }

    func save(_ request: DataStoreSaveChangesRequest<RowSnapshot>) throws -> DataStoreSaveChangesResult<RowSnapshot> {
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        var changed: [PersistentIdentifier: RowSnapshot] = [:]
        try configuration.rows.withLock { rows in
            for snapshot in request.inserted {
                let id = try PersistentIdentifier.identifier(for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: configuration.keys.add(1, ordering: .relaxed).newValue)
                remapped[snapshot.persistentIdentifier] = id
            }
            for snapshot in request.inserted + request.updated {
                let id = remapped[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier
                var row = snapshot.copy(persistentIdentifier: id, remappedIdentifiers: remapped)
                let trimmed = row.name.trimmingCharacters(in: .whitespaces)
                if trimmed != row.name {
                    row.name = trimmed
                    changed[id] = row
                }
                rows[id] = row
            }
            for snapshot in request.deleted { rows[snapshot.persistentIdentifier] = nil }
        }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped, snapshotsToReregister: changed)
    }
}

@Suite struct DataStoreVariantsTests {
    @Test func aStoresOwnSnapshotTypeIsReadThroughItsCodingKeys() throws {
        let configuration = RowStoreConfiguration()
        let container = try ModelContainer(for: Schema([Voyage.self]), configurations: [configuration])
        let context = ModelContext(container)
        context.insert(Voyage(name: "Oslo", days: 6))
        context.insert(Voyage(name: "Bergen", days: 2))
        try context.save()
        let stored = configuration.rows.withLock { $0.values.map(\.name) }
        #expect(Set(stored) == ["Oslo", "Bergen"])
        let other = ModelContext(container)
        let voyages = try other.fetch(FetchDescriptor<Voyage>())
        #expect(voyages.map(\.name) == ["Bergen", "Oslo"], "the store's own order")
        #expect(voyages.map(\.days) == [2, 6])
    }

    @Test func aStoreThatFiltersGetsThePredicateAndIsTrusted() throws {
        let configuration = RowStoreConfiguration()
        let container = try ModelContainer(for: Schema([Voyage.self]), configurations: [configuration])
        let context = ModelContext(container)
        for (name, days) in [("Oslo", 6), ("Bergen", 2), ("Tromsø", 9)] { context.insert(Voyage(name: name, days: days)) }
        try context.save()
        let reader = ModelContext(container)
        let long = try reader.fetch(FetchDescriptor<Voyage>(predicate: #Predicate { $0.days > 5 }))
        #expect(long.map(\.name) == ["Oslo", "Tromsø"])
        #expect(configuration.descriptors.withLock { $0 }.last == "predicate: true, sorts: 0")
    }

    @Test func valuesTheStoreChangesWhileSavingReachTheContext() throws {
        let configuration = RowStoreConfiguration()
        let container = try ModelContainer(for: Schema([Voyage.self]), configurations: [configuration])
        let context = ModelContext(container)
        let voyage = Voyage(name: "  Bodø ", days: 3)
        context.insert(voyage)
        try context.save()
        #expect(voyage.name == "Bodø")
        voyage.days = 4
        try context.save()
        #expect(configuration.rows.withLock { $0.values.map(\.days) } == [4])
    }

    @Test func coreDatasOwnStoreWorksThroughTheDataStoreInterface() throws {
        let url = temporaryStoreURL("default.store")
        let schema = Schema([Voyage.self])
        let store = try DefaultStore(ModelConfiguration(schema: schema, url: url))
        // Its snapshots are made by a context of a container on the same file, as a custom store's callers make them.
        let writer = try ModelContainer(for: Voyage.self, configurations: ModelConfiguration(schema: schema, url: url))
        let context = ModelContext(writer)
        let voyage = Voyage(name: "Riga", days: 3)
        context.insert(voyage)
        voyage.ports = [Port(name: "Old Town")]
        try context.save()
        let fetched = try store.fetch(fetchRequest(FetchDescriptor<Voyage>(), from: store))
        #expect(fetched.fetchedSnapshots.count == 1)
        #expect(fetched.fetchedSnapshots.first?.persistentIdentifier == voyage.persistentModelID)
        #expect(try store.fetchCount(fetchRequest(FetchDescriptor<Port>(), from: store)) == 1)
        #expect(!store.identifier.isEmpty)
        try store.erase()
        #expect(try store.fetchCount(fetchRequest(FetchDescriptor<Voyage>(), from: store)) == 0)
    }

    @Test func severalConfigurationsWithACustomOneAreRefused() throws {
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            try ModelContainer(for: Schema([Voyage.self]), configurations: [RowStoreConfiguration(), RowStoreConfiguration()])
        }
    }

    /// A store's fetch request as a context makes it (the request types have no public initializer).
    private func fetchRequest<T: PersistentModel, S: DataStore>(_ descriptor: FetchDescriptor<T>, from store: S) throws -> DataStoreFetchRequest<T> {
        let recorder = try RequestRecorder<T>(descriptor: descriptor)
        return try #require(recorder.request)
    }
}

/// Captures the fetch request a context hands a store, so a test can hand the same request to another store.
private final class RequestRecorder<T: PersistentModel> {
    var request: DataStoreFetchRequest<T>?
    init(descriptor: FetchDescriptor<T>) throws {
        let configuration = CaptureConfiguration()
        let container = try ModelContainer(for: Schema([T.self]), configurations: [configuration])
        _ = try? ModelContext(container).fetch(descriptor)
        request = configuration.captured.withLock { $0 } as? DataStoreFetchRequest<T>
    }
}

private final class CaptureConfiguration: DataStoreConfiguration {
    typealias Store = CaptureStore
    var name = "capture"
    var schema: Schema?
    let captured = Mutex<(any Sendable)?>(nil)
    static func == (lhs: CaptureConfiguration, rhs: CaptureConfiguration) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

private final class CaptureStore: DataStore {
    typealias Configuration = CaptureConfiguration
    typealias Snapshot = DefaultSnapshot
    let configuration: CaptureConfiguration
    let schema: Schema
    let identifier = "capture"
    init(_ configuration: CaptureConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        schema = configuration.schema!
    }
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        configuration.captured.withLock { $0 = request }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: [])
    }
    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        throw DataStoreError.unsupportedFeature
    }
}
