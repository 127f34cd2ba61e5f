import Logging

/// A token that names a generation of the persistent stores' data: a context pinned to it keeps reading that
/// generation — fetches, faults and refreshes — while other contexts and processes save.
///
/// For example:
/// ```swift
/// try viewContext.setQueryGenerationFrom(.current)      // pins at the next read
/// let moods = try viewContext.fetch(Mood.fetchRequest())  // the generation is fixed here
/// // … a background context saves …
/// let same = try viewContext.fetch(Mood.fetchRequest())   // still the pinned generation
/// try other.setQueryGenerationFrom(viewContext.queryGenerationToken)   // the same generation
/// ```
open class NSQueryGenerationToken: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    // @unchecked Sendable: immutable after init (the generation it names is itself thread-safe).

    /// The pinned generation; nil for `current` and for tokens read from an archive.
    let generation: QueryGeneration?
    /// Whether this is the `current` token.
    let isCurrent: Bool

    init(generation: QueryGeneration?, isCurrent: Bool = false) {
        self.generation = generation
        self.isCurrent = isCurrent
        super.init()
    }

    private static let currentToken = NSQueryGenerationToken(generation: nil, isCurrent: true)

    /// The token that pins a context to the generation current at its next read.
    ///
    /// For example:
    /// ```swift
    /// try context.setQueryGenerationFrom(.current)
    /// ```
    open class var current: NSQueryGenerationToken { currentToken }

    // MARK: NSSecureCoding

    public static var supportsSecureCoding: Bool { true }

    /// Archives the token. Only `current` survives archiving: a pinned generation is an open read of this process,
    /// so a token read back from an archive cannot be set on a context.
    ///
    /// For example:
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: NSQueryGenerationToken.current, requiringSecureCoding: true)
    /// ```
    open func encode(with coder: NSCoder) {
        coder.encode(isCurrent, forKey: "current")
    }

    /// Reads an archived token.
    ///
    /// For example:
    /// ```swift
    /// let token = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSQueryGenerationToken.self, from: data)
    /// ```
    public required init?(coder: NSCoder) {
        isCurrent = coder.decodeBool(forKey: "current")
        generation = nil
        super.init()
    }

    // MARK: NSObject

    /// The token itself (tokens are immutable).
    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSQueryGenerationToken else { return false }
        if isCurrent || other.isCurrent { return isCurrent == other.isCurrent }
        guard let generation, let otherGeneration = other.generation else { return self === other }
        return generation === otherGeneration
    }

    open override var hash: Int { isCurrent ? 1 : generation.map { ObjectIdentifier($0).hashValue } ?? ObjectIdentifier(self).hashValue }

    open override var description: String {
        if isCurrent { return "<NSQueryGenerationToken: current>" }
        guard let generation else { return "<NSQueryGenerationToken: unavailable>" }
        return "<NSQueryGenerationToken: \(generation.identifier.uuidString), \(generation.readers.count) store(s)>"
    }
}

/// A pinned generation: one reader per SQLite store of the coordinator (in WAL mode), and the row cache of the data
/// as it was then (shared by the contexts pinned to it; the coordinator's row cache holds current rows only).
final class QueryGeneration: PinnedGenerationReaders, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; readers are used under the coordinator's lock; RowCache locks itself.
    let identifier = UUID()
    weak var coordinator: NSPersistentStoreCoordinator?
    /// Each pinning store's reader, by the store's identity.
    let readers: [ObjectIdentifier: AnyObject]
    let rowCache = RowCache()

    init(coordinator: NSPersistentStoreCoordinator, readers: [ObjectIdentifier: AnyObject]) {
        self.coordinator = coordinator
        self.readers = readers
    }

    func reader(of store: NSPersistentStore) -> AnyObject? {
        readers[ObjectIdentifier(store)]
    }
}

private let queryGenerationLogger = Logger(label: "OpenCoreData.QueryGeneration")

extension NSManagedObjectContext {
    /// The generation the context reads: nil when it is unpinned (the default), or when none of its stores supports
    /// query generations (only SQLite stores in WAL mode do). Child contexts return nil: they read through their
    /// parent. A context set to `.current` is pinned when this is first read, or at its next fetch or fault.
    ///
    /// For example:
    /// ```swift
    /// try background.setQueryGenerationFrom(viewContext.queryGenerationToken)
    /// ```
    public var queryGenerationToken: NSQueryGenerationToken? {
        checkConfinement()
        guard _parent == nil, let token = _queryGeneration else { return nil }
        return token.isCurrent ? resolveQueryGeneration() : token
    }

    /// Pins the context to a generation of its stores' data, or unpins it:
    /// - `nil`: unpinned (reads see the latest data);
    /// - `.current`: pinned to the generation current at the next read (calling it again moves the context to the
    ///   latest generation);
    /// - another context's `queryGenerationToken`: the same generation as that context.
    ///
    /// A pinned context moves to the current generation after it saves, merges (`mergeChanges(fromContextDidSave:)`,
    /// `mergeChanges(fromRemoteContextSave:into:)`, automatic merging) or is reset; batch requests do not move it.
    /// Objects already in the context are not refreshed: call `refreshAllObjects()` or fetch again. Throws
    /// `NSCoreDataError` (134060) for a token of another coordinator or one read from an archive, and for a child
    /// context (child contexts read through their parent's generation; `nil` is accepted and does nothing).
    ///
    /// For example:
    /// ```swift
    /// try viewContext.setQueryGenerationFrom(.current)
    /// ```
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        checkConfinement()
        if _parent != nil && generation != nil {
            throw CoreDataError.make(NSCoreDataError, "setQueryGenerationFrom(_:) cannot pin a child context: it reads through its parent's generation (pin the parent)")
        }
        guard let generation else {
            _queryGeneration = nil
            return
        }
        if generation.isCurrent {
            _queryGeneration = generation
            return
        }
        guard let pinned = generation.generation else {
            throw CoreDataError.make(NSCoreDataError, "The query generation token \(generation) is not available in this process (a generation cannot be read back from an archive); use NSQueryGenerationToken.current")
        }
        guard let coordinator = persistentStoreCoordinator, pinned.coordinator === coordinator else {
            throw CoreDataError.make(NSCoreDataError, "The query generation token \(generation) belongs to another persistent store coordinator than this context's")
        }
        _queryGeneration = generation
    }

    /// Pins a context set to `.current` now: opens a reader on every SQLite store in WAL mode. With no such store the
    /// context reverts to unpinned; when a reader cannot be opened (the store is busy beyond its timeout) the error
    /// is logged and the context reads unpinned until its next read tries again.
    @discardableResult
    func resolveQueryGeneration() -> NSQueryGenerationToken? {
        guard let coordinator = persistentStoreCoordinator else { return nil }
        do {
            let readers: [ObjectIdentifier: AnyObject] = try coordinator.withLock {
                var readers: [ObjectIdentifier: AnyObject] = [:]
                for case let store as QueryGenerationStore in coordinator.persistentStores where store.supportsQueryGenerations {
                    readers[ObjectIdentifier(store)] = try store.makeGenerationReader()
                }
                return readers
            }
            guard !readers.isEmpty else {
                _queryGeneration = nil
                return nil
            }
            let token = NSQueryGenerationToken(generation: QueryGeneration(coordinator: coordinator, readers: readers))
            _queryGeneration = token
            return token
        } catch {
            queryGenerationLogger.error("Could not pin the query generation of context \(name ?? "(unnamed)"): \(error.localizedDescription); reading unpinned")
            return nil
        }
    }

    /// The generation this context reads (resolving `.current` to the stores' state now), or nil when unpinned.
    var pinnedGeneration: QueryGeneration? {
        guard let token = _queryGeneration else { return nil }
        return (token.isCurrent ? resolveQueryGeneration() : token)?.generation
    }

    /// The row cache the context's reads use: its pinned generation's own, or the coordinator's.
    func readRowCache(_ coordinator: NSPersistentStoreCoordinator) -> RowCache {
        guard let token = _queryGeneration else { return coordinator.rowCache }
        let resolved = token.isCurrent ? resolveQueryGeneration() : token
        return resolved?.generation?.rowCache ?? coordinator.rowCache
    }

    /// A pinned context moves to the current generation (at its next read) after it saves, merges or is reset,
    /// as Apple documents.
    func advanceQueryGeneration() {
        if _queryGeneration != nil { _queryGeneration = .current }
    }
}
