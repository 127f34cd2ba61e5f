import Foundation
@_spi(OpenSwiftData) import OpenCoreData
import Synchronization

/// The saves other contexts of the container made that a context has not merged yet (their object IDs), filled on
/// the saving thread and drained by the context on its own: a context catches up with the container's saves when it
/// is next used (a fetch, a save, an insert, a deletion, a look-up by identifier), and the main context also right
/// away on the main actor.
///
/// ```swift
/// inbox.post(SavedChanges(inserted: [], updated: [id], deleted: []))   // another context saved
/// if let changes = inbox.drain() { merge(changes) }                     // this context, when next used
/// ```
final class SaveInbox: Sendable {
    /// The saves posted since the last drain, as one: a context left idle holds each changed row's ID once, however
    /// many saves changed it.
    private let pending = Locked<SavedChanges?>(nil)
    private let hasPending = Atomic<Bool>(false)
    /// Called after each post, from the posting thread: schedules the context's catching up where it is used.
    private let wakeUp = Locked<(@Sendable () -> Void)?>(nil)

    func post(_ changes: SavedChanges) {
        pending.withLock { $0 = $0.map { $0.merged(with: changes) } ?? changes }
        hasPending.store(true, ordering: .releasing)
        wakeUp.withLock { $0 }?()
    }

    /// Has `block` called after each post (a context with results observers catches up at once).
    func setWakeUp(_ block: @escaping @Sendable () -> Void) {
        wakeUp.withLock { $0 = block }
    }

    /// The saves posted since the last drain, merged (nil when there are none; cheap then).
    func drain() -> SavedChanges? {
        guard hasPending.load(ordering: .acquiring) else { return nil }
        return pending.withLock { saves in
            hasPending.store(false, ordering: .relaxed)
            defer { saves = nil }
            return saves
        }
    }
}

/// The object IDs one save (or several, merged) inserted, updated and deleted.
struct SavedChanges: Sendable {
    let inserted: Set<NSManagedObjectID>
    let updated: Set<NSManagedObjectID>
    let deleted: Set<NSManagedObjectID>

    init(inserted: Set<NSManagedObjectID>, updated: Set<NSManagedObjectID>, deleted: Set<NSManagedObjectID>) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// The rows one history transaction inserted, updated and deleted.
    init(_ transaction: NSPersistentHistoryTransaction) {
        var inserted = Set<NSManagedObjectID>(), updated = Set<NSManagedObjectID>(), deleted = Set<NSManagedObjectID>()
        for change in transaction.changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            @unknown default: updated.insert(change.changedObjectID)
            }
        }
        self.init(inserted: inserted, updated: updated.subtracting(inserted), deleted: deleted)
    }

    /// These changes followed by `later`: a row deleted later is only deleted.
    func merged(with later: SavedChanges) -> SavedChanges {
        let deleted = deleted.union(later.deleted)
        return SavedChanges(inserted: inserted.union(later.inserted).subtracting(deleted), updated: updated.union(later.updated).subtracting(deleted),
                            deleted: deleted)
    }
}

/// The inboxes of a container's live contexts.
final class SaveInboxes: Sendable {
    private struct Entry: Sendable {
        weak var inbox: SaveInbox?
    }

    private let entries = Locked<[Entry]>([])

    func add(_ inbox: SaveInbox) {
        entries.withLock { entries in
            entries.removeAll { $0.inbox == nil }
            entries.append(Entry(inbox: inbox))
        }
    }

    /// Posts `changes` to every inbox but the saver's (every inbox when `saver` is nil: another writer's save).
    func post(_ changes: SavedChanges, from saver: SaveInbox?) {
        let inboxes = entries.withLock { $0.compactMap(\.inbox) }
        for inbox in inboxes where inbox !== saver { inbox.post(changes) }
    }
}
