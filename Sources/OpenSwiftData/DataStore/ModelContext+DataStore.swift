import Foundation
@_spi(OpenSwiftData) import OpenCoreData

extension ModelContext {
    /// Who the context is to a custom ``DataStore``: its identity (the same for all its requests) and its ``author``.
    ///
    /// ```swift
    /// context.author = "importer"
    /// context.editingState.author   // "importer"
    /// ```
    public var editingState: EditingState {
        EditingState(id: editingStateID, author: author)
    }

    /// The model context over a Core Data context, if it has one (a custom data store's adapter finds the asking
    /// model context so).
    static func owning(_ managedObjectContext: NSManagedObjectContext) -> ModelContext? {
        ModelContextsByManagedContext.shared.contexts.withLock { $0[ObjectIdentifier(managedObjectContext)]?.context }
    }

    /// Records the context as the owner of its Core Data context (when made) and tells its container's custom data
    /// store, if it has one (only that store's adapter looks contexts up).
    func registerForDataStore() {
        guard let dataStore = container.dataStore else { return }
        ModelContextsByManagedContext.shared.contexts.withLock {
            $0[ObjectIdentifier(managedObjectContext)] = WeakModelContext(context: self)
        }
        dataStore.initializeState(for: editingState)
    }

    /// Forgets the context (when it goes away) and tells its container's custom data store.
    func unregisterForDataStore() {
        guard let dataStore = container.dataStore else { return }
        _ = ModelContextsByManagedContext.shared.contexts.withLock { $0.removeValue(forKey: ObjectIdentifier(managedObjectContext)) }
        dataStore.invalidateState(for: editingState)
    }

    /// Runs `body` (a fetch) with `descriptor` lent to a custom data store's adapter, which hands it to the store.
    func lending<T: PersistentModel, R>(_ descriptor: FetchDescriptor<T>, _ body: () throws -> R) rethrows -> R {
        guard container.dataStore != nil else { return try body() }
        lentDescriptor = descriptor
        defer { lentDescriptor = nil }
        return try body()
    }

    /// The lent descriptor, taken once (the fetch's first store request is the context's own).
    func takeLentDescriptor() -> Any? {
        defer { lentDescriptor = nil }
        return lentDescriptor
    }
}

/// The live model contexts by their Core Data context.
private final class ModelContextsByManagedContext: Sendable {
    static let shared = ModelContextsByManagedContext()
    let contexts = Locked<[ObjectIdentifier: WeakModelContext]>([:])
}

private struct WeakModelContext: @unchecked Sendable {
    // @unchecked Sendable: only compared and handed back on the context's own thread (the adapter runs on it).
    weak var context: ModelContext?
}
