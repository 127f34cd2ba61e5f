/// Watches one managed object and calls back when it changes or goes away: the objc.io *Core Data* book's
/// `ManagedObjectObserver`, built on the context's `ObjectsDidChange` notification.
///
/// `.delete` when the object is deleted (also by a merge from another context) or invalidated (a rollback of its
/// insertion, or `NSInvalidatedAllObjectsKey`);
/// `.update` when it is updated or refreshed — including updates merged from another context while the object was a
/// fault (which `ObjectsDidChange` does not list). Keep the observer alive as long as you want callbacks; they arrive on
/// the object's context's queue at the end of each event.
///
/// For example:
/// ```swift
/// observer = ManagedObjectObserver(object: mood) { [weak self] change in
///     switch change {
///     case .delete: self?.close()
///     case .update: self?.redraw()
///     }
/// }
/// ```
public final class ManagedObjectObserver {
    /// What happened to the observed object.
    public enum ChangeType: Sendable, Hashable {
        /// The object was deleted or is otherwise gone from its context.
        case delete
        /// The object changed.
        case update
    }

    private let object: NSManagedObject
    private let handler: (ChangeType) -> Void
    private var tokens: [NSObjectProtocol] = []
    private var reportedInLastNotification = false
    private var isDeleted = false

    /// Starts observing `object`; nil when the object has no context. Call it on the context's queue.
    ///
    /// For example:
    /// ```swift
    /// let observer = ManagedObjectObserver(object: country) { change in print(change) }
    /// ```
    public init?(object: NSManagedObject, changeHandler: @escaping (ChangeType) -> Void) {
        guard let context = object.managedObjectContext else { return nil }
        self.object = object
        handler = changeHandler
        let box = WeakObserver(self, context: context)
        let center = NotificationCenter.default
        tokens.append(center.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: nil, queue: nil) { note in
            guard let poster = note.object as AnyObject?, ObjectIdentifier(poster) == box.contextIdentity, let observer = box.observer else { return }
            observer.objectsDidChange(note)
        })
        tokens.append(center.addObserver(forName: .NSManagedObjectContextDidMergeChangesObjectIDs, object: nil, queue: nil) { note in
            guard let poster = note.object as AnyObject?, ObjectIdentifier(poster) == box.contextIdentity, let observer = box.observer else { return }
            observer.didMergeChanges(note)
        })
    }

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }

    /// The changes of `object` as an asynchronous sequence, ending after `.delete` (or when iteration stops). Call it on
    /// the object's context's queue; iterate anywhere.
    ///
    /// For example:
    /// ```swift
    /// let changes = context.performAndWait { ManagedObjectObserver.changes(of: mood) }
    /// for await change in changes { print(change) }
    /// ```
    public static func changes(of object: NSManagedObject) -> AsyncStream<ChangeType> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeType.self)
        guard let context = object.managedObjectContext else {
            continuation.yield(.delete)
            continuation.finish()
            return stream
        }
        let holder = StreamObserverHolder()
        holder.observer = ManagedObjectObserver(object: object) { change in
            continuation.yield(change)
            if change == .delete { continuation.finish() }
        }
        let weakContext = WeakContext(context)
        continuation.onTermination = { _ in
            // Stop observing on the context's queue, where the observer lives.
            if let context = weakContext.context { context.perform { holder.observer = nil } } else { holder.observer = nil }
        }
        return stream
    }

    private func objectsDidChange(_ note: Notification) {
        guard !isDeleted else { return }
        let info = note.userInfo ?? [:]
        func contains(_ key: String) -> Bool {
            switch info[key] {
            case let set as Set<NSManagedObject>: return set.contains(object)
            case let set as NSSet: return set.contains(object)
            default: return false
            }
        }
        if info[NSInvalidatedAllObjectsKey] != nil || contains(NSDeletedObjectsKey) || contains(NSInvalidatedObjectsKey) {
            isDeleted = true
            handler(.delete)
        } else if contains(NSUpdatedObjectsKey) || contains(NSRefreshedObjectsKey) {
            rememberReported()
            handler(.update)
        }
    }

    /// Remembers that this event's `ObjectsDidChange` reported the object, so the merge notification that may follow it
    /// in the same event does not report it again; forgotten when the event is over.
    private func rememberReported() {
        reportedInLastNotification = true
        guard let context = object.managedObjectContext, context.concurrencyType != .confinementConcurrencyType else { return }
        let box = WeakObserver(self, context: context)
        context.perform { box.observer?.reportedInLastNotification = false }
    }

    private func didMergeChanges(_ note: Notification) {
        guard !isDeleted, !reportedInLastNotification else { return }
        let updated = NSManagedObjectContext.objectIDs(note.userInfo?[NSUpdatedObjectIDsKey])
        if updated.contains(object.objectID) { handler(.update) }
    }
}

/// A weak reference to an observer for notification callbacks.
private final class WeakObserver: @unchecked Sendable {
    // @unchecked Sendable: the observer is only reached on its context's queue (where the context posts).
    weak var observer: ManagedObjectObserver?
    let contextIdentity: ObjectIdentifier
    init(_ observer: ManagedObjectObserver, context: NSManagedObjectContext) {
        self.observer = observer
        contextIdentity = ObjectIdentifier(context)
    }
}

/// Holds the observer behind a `changes(of:)` stream until the stream ends.
private final class StreamObserverHolder: @unchecked Sendable {
    // @unchecked Sendable: `observer` is created on the context's queue and cleared there (via `perform`).
    var observer: ManagedObjectObserver?
}
