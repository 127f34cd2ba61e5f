import Foundation

@testable import OpenCoreData

// The stress suite's oracle: it reads the store file with the SQLite C API (not the library's connection), under a
// lock every writer of both processes takes around "predict, save, check", so what it reads is exactly what the
// save will meet. Everything else — edits, faults, fetches, merges, insert-only saves — runs concurrently.

/// What the oracle predicts for one object a save writes.
struct SavePrediction {
    let object: NSManagedObject
    let entity: String
    let primaryKey: Int64
    /// The version and values the context last read (its snapshot) and shows now.
    let readVersion: Int64
    let committed: StressRow
    let current: StressRow
    /// The row in the file when the save starts.
    let stored: StoredRow

    /// A conflict, by versions: the row was committed by someone else since the context read it.
    var conflicts: Bool { stored.version != readVersion }
    /// The same question asked of the values: every commit writes a fresh stamp, so the stamp the context read
    /// differs from the file's exactly when someone committed since (under the error policy, where nothing
    /// merges rows without a fresh stamp).
    var conflictsByStamp: Bool { stored.values["stamp"] != committed["stamp"] }

    /// The row the file must hold after a successful save under `policy` — Apple's documented outcomes:
    /// store trump keeps the store's value of every property the store changed, object trump keeps the context's
    /// value of every property the context changed, overwrite writes the context's whole object, rollback keeps
    /// the stored row (the context's changes to the object are discarded and it is not written).
    func expectedAfterSave(_ policy: StressPolicy) -> StoredRow {
        guard conflicts else { return StoredRow(version: stored.version + 1, values: current) }
        var values = StressRow()
        switch policy {
        case .error, .overwrite:
            values = current
        case .rollback:
            return stored
        case .storeTrump:
            for (key, value) in current { values[key] = stored.values[key] != committed[key] ? stored.values[key] : value }
        case .objectTrump:
            for (key, value) in current { values[key] = value != committed[key] ? value : stored.values[key] }
        }
        return StoredRow(version: stored.version + 1, values: values)
    }

    /// Predicts the save of `object` (on its context's queue, under the save lock).
    init(_ object: NSManagedObject, reader: StressRawReader) {
        self.object = object
        entity = object.entity.name ?? ""
        guard let primaryKey = object.objectID.primaryKey else { preconditionFailure("\(object.objectID) has no primary key") }
        self.primaryKey = primaryKey
        committed = object.stressCommitted
        current = object.stressCurrent
        readVersion = object.committedSnapshot?.version ?? 0
        guard let stored = reader.row(entity, primaryKey) else { preconditionFailure("no row for \(object.objectID)") }
        self.stored = stored
    }
}
