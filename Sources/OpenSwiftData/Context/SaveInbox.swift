import Foundation
import OpenCoreData
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
    private let pending = Mutex<SavedChanges?>(nil)
    private let hasPending = Atomic<Bool>(false)

    func post(_ changes: SavedChanges) {
        pending.withLock { $0 = $0.map { $0.merged(with: changes) } ?? changes }
        hasPending.store(true, ordering: .releasing)
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

    private let entries = Mutex<[Entry]>([])

    func add(_ inbox: SaveInbox) {
        entries.withLock { entries in
            entries.removeAll { $0.inbox == nil }
            entries.append(Entry(inbox: inbox))
        }
    }

    /// Posts `changes` to every inbox but the saver's.
    func post(_ changes: SavedChanges, from saver: SaveInbox) {
        let inboxes = entries.withLock { $0.compactMap(\.inbox) }
        for inbox in inboxes where inbox !== saver { inbox.post(changes) }
    }
}
