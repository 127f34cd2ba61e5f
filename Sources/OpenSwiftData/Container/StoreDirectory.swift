import Foundation
@_spi(OpenSwiftData) import OpenCoreData

/// The coordinators of the live containers, by the identifiers of their stores: an identifier decoded from its URI
/// (`x-coredata://<store>/<Entity>/p<key>`) finds its row's object ID through the container that has that store.
///
/// ```swift
/// StoreDirectory.shared.add(coordinator)                        // a container opened its store
/// StoreDirectory.shared.objectID(for: uri)                      // a decoded identifier's object ID, if open
/// ```
final class StoreDirectory: Sendable {
    static let shared = StoreDirectory()

    private struct Entry: @unchecked Sendable {
        // @unchecked Sendable: the coordinator is thread-safe (its own lock); the reference is weak.
        weak var coordinator: NSPersistentStoreCoordinator?
    }

    private let entries = Locked<[String: [Entry]]>([:])

    /// Records the stores of `coordinator` (the entries go with the coordinator).
    func add(_ coordinator: NSPersistentStoreCoordinator) {
        let identifiers = coordinator.persistentStores.compactMap(\.identifier)
        entries.withLock { entries in
            for identifier in identifiers {
                entries[identifier, default: []].removeAll { $0.coordinator == nil }
                entries[identifier, default: []].append(Entry(coordinator: coordinator))
            }
        }
    }

    /// The object ID a row's URI names, through a live container that has its store.
    func objectID(for uri: URL) -> NSManagedObjectID? {
        guard let store = uri.host else { return nil }
        let coordinators = entries.withLock { $0[store]?.compactMap(\.coordinator) ?? [] }
        return coordinators.lazy.compactMap { $0.managedObjectID(forURIRepresentation: uri) }.first
    }
}
