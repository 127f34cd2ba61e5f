import Foundation

/// Who asks a store, as the store sees it: a value the coordinator passes with every read and write, so that no
/// store reaches into a context (DESIGN.md §3). A store records `author` and `contextName` in persistent history,
/// reads through `generation`'s reader when the asker is pinned to a query generation, and hands `asker` on only
/// where Apple's public custom-store API passes a context (`NSIncrementalStore`, `NSAtomicStore`).
///
/// ```swift
/// let snapshot = try store.snapshot(for: objectID, requestContext: context.storeReadContext)
/// ```
struct StoreRequestContext {
    /// The transaction author history records for a write (the context's `transactionAuthor`).
    var author: String?
    /// The context name history records for a write.
    var contextName: String?
    /// The query generation reads are pinned to, if any (nil: the store's current state).
    var generation: (any PinnedGenerationReaders)?
    /// The asker, opaque: an `NSManagedObjectContext`, which only the adapters of Apple's public store API
    /// (incremental and atomic stores) hand on, as Apple's API does.
    var asker: AnyObject?

    /// A request on behalf of no context (the coordinator's own reads, a migration's).
    static var unattributed: StoreRequestContext { StoreRequestContext(author: nil, contextName: nil, generation: nil, asker: nil) }
}

/// The readers of a pinned query generation, one per store that supports generations: a store finds its own.
protocol PinnedGenerationReaders: AnyObject {
    /// The reader `store` opened for this generation (nil when it has none: it reads unpinned).
    func reader(of store: NSPersistentStore) -> AnyObject?
}

/// Stores that can pin a query generation (`NSQueryGenerationToken`): the SQLite store in WAL mode. A context pinning
/// a generation asks each for a reader, and passes the readers with its later reads.
protocol QueryGenerationStore: NSPersistentStore {
    /// Whether the store can pin a generation now (a file store in WAL mode).
    var supportsQueryGenerations: Bool { get }
    /// A reader holding the store's current state until it is released.
    func makeGenerationReader() throws -> AnyObject
}
