/// `NSInMemoryStoreType`: a real store that keeps its rows in memory — the same contract, versioning,
/// uniqueness constraints and fetch semantics as the SQLite store, without a file.
///
/// For example:
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
/// ```
final class InMemoryStore: NSPersistentStore, SnapshotStore, @unchecked Sendable {
    // @unchecked Sendable: all row state is accessed only under the coordinator's lock (SnapshotStore contract).

    /// One stored object.
    final class Row {
        let objectID: NSManagedObjectID
        var snapshot: ObjectSnapshot
        /// To-many members by layout slot (ordered relationships keep their order).
        var toMany: [Int: [NSManagedObjectID]]

        init(objectID: NSManagedObjectID, snapshot: ObjectSnapshot, toMany: [Int: [NSManagedObjectID]]) {
            self.objectID = objectID
            self.snapshot = snapshot
            self.toMany = toMany
        }
    }

    var rows: [NSManagedObjectID: Row] = [:]
    /// The highest primary key handed out per inheritance hierarchy (root entity name), like `Z_MAX`.
    private var maxPrimaryKeys: [String: Int64] = [:]
    private(set) var model: NSManagedObjectModel?

    override var type: String { NSInMemoryStoreType }

    func load(model: NSManagedObjectModel) throws {
        self.model = model
        metadata = [
            NSStoreTypeKey: NSInMemoryStoreType,
            NSStoreUUIDKey: UUID().uuidString,
            NSStoreModelVersionHashesKey: model.entityVersionHashesByName,
            NSStoreModelVersionIdentifiersKey: Array(model.versionIdentifiers.compactMap { $0.base as? String }),
        ]
    }

    /// An in-memory store has no files: destroying one is removing it from its coordinator; no file at the URL is touched.
    override class func destroyStoreFiles(at url: URL, options: [AnyHashable: Any]?, removingOpenStores removeOpenStores: () throws -> Void) throws {
        try removeOpenStores()
    }

    /// An in-memory store has no files to copy or replace.
    override class func replaceStoreFiles(at destination: URL, destinationOptions: [AnyHashable: Any]?, withStoreAt source: URL,
                                          sourceOptions: [AnyHashable: Any]?) throws {
        throw CoreDataError.make(NSPersistentStoreOperationError, "An in-memory store has no files to replace (\(destination.absoluteString))",
                                 userInfo: [NSFilePathErrorKey: destination.path])
    }

    func newObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        let root = entity.rootEntity.name ?? ""
        let first = (maxPrimaryKeys[root] ?? 0) + 1
        maxPrimaryKeys[root] = first + Int64(count) - 1
        return (0..<Int64(count)).map { objectID(for: entity, primaryKey: first + $0) }
    }

    func snapshot(for objectID: NSManagedObjectID, requestContext: StoreRequestContext) throws -> ObjectSnapshot? {
        rows[objectID]?.snapshot
    }

    func relatedObjectIDs(of objectID: NSManagedObjectID, through relationship: NSRelationshipDescription, requestContext: StoreRequestContext) throws -> [NSManagedObjectID] {
        guard let row = rows[objectID], case .toMany(let slot, _)? = objectID.entity.layout.slots[relationship.name] else { return [] }
        return row.toMany[slot] ?? []
    }

    func save(_ changes: StoreSaveChanges, requestContext: StoreRequestContext) throws -> StoreSaveResult {
        // Optimistic locking: every updated or deleted row must still have the version the context saw.
        var conflicts: [StoreSaveConflicts.Conflict] = []
        for update in changes.updates {
            let current = rows[update.objectID]
            if current?.snapshot.version != update.expectedVersion {
                conflicts.append(.init(objectID: update.objectID, expectedVersion: update.expectedVersion, persisted: current?.snapshot))
            }
        }
        for delete in changes.deletes {
            if let current = rows[delete.objectID], current.snapshot.version != delete.expectedVersion {
                conflicts.append(.init(objectID: delete.objectID, expectedVersion: delete.expectedVersion, persisted: current.snapshot))
            }
        }
        guard conflicts.isEmpty else { throw StoreSaveConflicts(conflicts: conflicts) }

        // Apply in place, journaling each row's previous value, so that a constraint violation can put everything
        // back (all or nothing) without copying the whole table on every save.
        let journal = RowJournal(store: self)
        for delete in changes.deletes { journal.set(delete.objectID, nil) }
        for insert in changes.inserts {
            var snapshot = insert.snapshot
            snapshot.version = 1
            journal.set(insert.objectID, Row(objectID: insert.objectID, snapshot: snapshot, toMany: [:]))
        }
        for update in changes.updates {
            guard let existing = rows[update.objectID] else { continue }
            var snapshot = update.snapshot
            snapshot.version = existing.snapshot.version + 1
            journal.set(update.objectID, Row(objectID: update.objectID, snapshot: snapshot, toMany: existing.toMany))
        }
        Self.applyRelationshipChanges(changes, journal: journal)
        let touched = changes.inserts.map(\.objectID) + changes.updates.map(\.objectID)
        do {
            try UniquenessChecker.check(touched, in: rows)
        } catch {
            journal.rollback()
            throw error
        }
        return StoreSaveResult(objectsChangedByStore: computeDerivedAttributes())
    }

    /// Recomputes every derived attribute and reports the objects whose values changed.
    private func computeDerivedAttributes() -> Set<NSManagedObjectID> {
        var changed = Set<NSManagedObjectID>()
        var derivedByEntity: [ObjectIdentifier: [(Int, NSDerivedAttributeDescription)]] = [:]
        for entity in model?.entities ?? [] {
            let derived = DerivedAttributes.slots(of: entity)
            if !derived.isEmpty { derivedByEntity[ObjectIdentifier(entity)] = derived }
        }
        guard !derivedByEntity.isEmpty else { return [] }
        let views = RowViews(store: self, requestContext: .unattributed)
        for row in rows.values {
            guard let derived = derivedByEntity[ObjectIdentifier(row.objectID.entity)] else { continue }
            for (slot, attribute) in derived {
                let value = DerivedAttributes.value(of: attribute, for: views.view(for: row.objectID))
                if row.snapshot.attributes[slot] != value {
                    row.snapshot.attributes[slot] = value
                    changed.insert(row.objectID)
                }
            }
        }
        return changed
    }
}

/// The rows a save changed and what they were before, so that a failed save can be undone.
final class RowJournal {
    private unowned let store: InMemoryStore
    private var previous: [NSManagedObjectID: InMemoryStore.Row?] = [:]
    /// Rows created by this save (changed in place without another copy).
    private(set) var owned = Set<NSManagedObjectID>()

    init(store: InMemoryStore) { self.store = store }

    /// The current row of `objectID`.
    subscript(objectID: NSManagedObjectID) -> InMemoryStore.Row? { store.rows[objectID] }

    /// Replaces (or removes) a row, remembering the first value it had.
    func set(_ objectID: NSManagedObjectID, _ row: InMemoryStore.Row?) {
        if previous.index(forKey: objectID) == nil { previous[objectID] = .some(store.rows[objectID]) }
        store.rows[objectID] = row
        if row != nil { owned.insert(objectID) } else { owned.remove(objectID) }
    }

    /// A row this save may change in place (copied the first time, so the journal keeps the original).
    func mutableRow(_ objectID: NSManagedObjectID) -> InMemoryStore.Row? {
        guard let row = store.rows[objectID] else { return nil }
        if owned.contains(objectID) { return row }
        let copy = InMemoryStore.Row(objectID: row.objectID, snapshot: row.snapshot, toMany: row.toMany)
        set(objectID, copy)
        return copy
    }

    /// Puts every changed row back.
    func rollback() {
        for (objectID, row) in previous { store.rows[objectID] = row }
        previous = [:]
        owned = []
    }

    /// The row `objectID` had before this save.
    func original(_ objectID: NSManagedObjectID) -> InMemoryStore.Row? {
        if let index = previous.index(forKey: objectID) { return previous[index].value }
        return store.rows[objectID]
    }
}

/// Enforces uniqueness constraints on a set of rows the way an SQLite `UNIQUE` index does: rows of the
/// constraint's entity hierarchy may not share the constrained values, except that NULLs never collide. The rows
/// of each constraint are indexed once per check (not scanned once per touched row).
enum UniquenessChecker {
    static func check(_ touched: [NSManagedObjectID], in rows: [NSManagedObjectID: InMemoryStore.Row]) throws {
        let touchedSet = Set(touched)
        // The constraints the touched rows are subject to.
        var constraints: [(declaring: NSEntityDescription, names: [String])] = []
        var seen = Set<String>()
        for objectID in touched {
            var entity: NSEntityDescription? = objectID.entity
            while let declaring = entity {
                for constraint in declaring.uniquenessConstraintNames where !constraint.isEmpty {
                    let key = (declaring.name ?? "") + "|" + constraint.joined(separator: ",")
                    if seen.insert(key).inserted { constraints.append((declaring, constraint)) }
                }
                entity = declaring.superentity
            }
        }
        for (declaring, constraint) in constraints {
            var owners: [[StoredValue]: [NSManagedObjectID]] = [:]
            for row in rows.values where row.objectID.entity.isKindOf(entity: declaring) {
                let key = values(of: row, constraint: constraint)
                guard !key.contains(where: \.isNull) else { continue }
                owners[key, default: []].append(row.objectID)
            }
            for objectID in touched {
                guard let row = rows[objectID], row.objectID.entity.isKindOf(entity: declaring) else { continue }
                let key = values(of: row, constraint: constraint)
                guard !key.contains(where: \.isNull), let sharing = owners[key], sharing.count > 1 else { continue }
                let clashes = sharing.filter { $0 != objectID }
                let savedTogether = clashes.filter { touchedSet.contains($0) }
                throw StoreConstraintViolation(
                    entity: declaring, constraint: constraint, objectIDs: [objectID] + savedTogether,
                    existing: clashes.first { !touchedSet.contains($0) })
            }
        }
    }

    /// The values of `constraint`'s properties in `row` (to-one relationships by destination primary key).
    static func values(of row: InMemoryStore.Row, constraint: [String]) -> [StoredValue] {
        let layout = row.objectID.entity.layout
        return constraint.map { name in
            switch layout.slots[name] {
            case .attribute(let slot, _)?: return row.snapshot.attributes[slot]
            case .toOne(let slot, _)?: return row.snapshot.toOne[slot].flatMap { $0.primaryKey.map(StoredValue.integer) } ?? .null
            default: return .null
            }
        }
    }
}
