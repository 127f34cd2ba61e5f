import Foundation

/// The coordinator's row cache: the last known snapshot of each object, shared by every context on the
/// coordinator, so that a fault fires without a store round trip when the row is already known
/// (objc.io, "Accessing Data"). Thread-safe.
final class RowCache: Sendable {
    /// A cached row and when it was read from the store.
    private struct Entry {
        var snapshot: ObjectSnapshot
        var fetched: ContinuousClock.Instant
    }

    private let rows = Locked<[NSManagedObjectID: Entry]>([:])   // not Mutex: TSan cannot see it (Locked.swift)

    /// The cached row of `objectID`, if it is not older than `maximumAge` seconds (negative: any age).
    func snapshot(for objectID: NSManagedObjectID, maximumAge: TimeInterval = -1) -> ObjectSnapshot? {
        rows.withLock { rows in
            guard let entry = rows[objectID] else { return nil }
            if maximumAge >= 0 && entry.fetched.duration(to: .now) > .milliseconds(Int64(maximumAge * 1000)) { return nil }
            return entry.snapshot
        }
    }

    /// Records rows a fetch or fault produced (a newer version replaces an older one).
    func store(_ snapshot: ObjectSnapshot, for objectID: NSManagedObjectID) {
        let now = ContinuousClock.now
        rows.withLock { rows in
            if let existing = rows[objectID], existing.snapshot.version > snapshot.version { return }
            rows[objectID] = Entry(snapshot: snapshot, fetched: now)
        }
    }

    /// Records the rows a save wrote and forgets the deleted ones.
    func apply(saved: [(NSManagedObjectID, ObjectSnapshot)], deleted: [NSManagedObjectID]) {
        let now = ContinuousClock.now
        rows.withLock { rows in
            for (objectID, snapshot) in saved { rows[objectID] = Entry(snapshot: snapshot, fetched: now) }
            for objectID in deleted { rows[objectID] = nil }
        }
    }

    /// Forgets rows (so the next access reads the store).
    func remove(_ objectIDs: some Sequence<NSManagedObjectID>) {
        rows.withLock { rows in for objectID in objectIDs { rows[objectID] = nil } }
    }

    /// Forgets every row.
    func removeAll() { rows.withLock { $0.removeAll() } }

    /// The number of cached rows.
    var count: Int { rows.withLock { $0.count } }
}
