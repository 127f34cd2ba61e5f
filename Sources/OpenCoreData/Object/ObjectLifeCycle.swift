/// Where a managed object is in its life: what its context will do with it at the next save (``Change``) and whether
/// its values are loaded (a fault). It is one stored value, and every change of it is one of the transitions below,
/// each named for the event that causes it; `NSManagedObject`'s `isInserted`, `isUpdated`, `isDeleted`,
/// `hasChanges` and `isFault` are read from it. The context keeps the matching change sets (`insertedSet`,
/// `updatedSet`, `deletedSet`): `NSManagedObjectContext._checkInvariants(of:)` checks that they agree.
///
/// ```swift
/// var state = ObjectLifeCycle.new             // created, not yet in a context
/// state.insert()                              // .inserted: context.insert(object)
/// state.delete()                              // .insertedThenDeleted: it leaves the context at the next save
/// state.undelete()                            // .inserted again (undo)
/// ```
///
/// A fault has no unsaved value changes: `updated` and `updatedThenDeleted` objects are realized (refreshing or
/// rolling back an updated object discards its update before turning it into a fault).
struct ObjectLifeCycle: Equatable {
    /// What the object's context will do with it at the next save.
    enum Change: UInt8 {
        /// Nothing: the object matches its row (or is in no context).
        case none
        /// Write its changed values (or check its version: `detectConflicts(for:)`).
        case updated
        /// Insert its row.
        case inserted
        /// Delete its row.
        case deleted
        /// Delete its row; it was changed before it was deleted, so undoing the deletion gives `.updated` back.
        case updatedThenDeleted
        /// Nothing: it was inserted and deleted before a save, and leaves the context at the save.
        case insertedThenDeleted
        /// Nothing: its row was deleted elsewhere (another context or process, a batch delete). It reads as deleted:
        /// an inaccessible fault fulfilled as an empty deleted object, or a deletion merged from another context.
        case deletedElsewhere
    }

    /// What the context will do with the object at the next save.
    private(set) var change: Change
    /// Whether the object's values are not loaded.
    private(set) var isFault: Bool

    /// A new object (created, not yet inserted).
    static let new = ObjectLifeCycle(change: .none, isFault: false)
    /// An object a context creates for a row: a fault awaiting its values.
    static let fault = ObjectLifeCycle(change: .none, isFault: true)

    // MARK: Reading

    /// Whether the object was inserted and the insertion not yet saved (deleted since or not).
    var isInserted: Bool { change == .inserted || change == .insertedThenDeleted }
    /// Whether the object was deleted and the deletion not yet saved.
    var isDeleted: Bool {
        change == .deleted || change == .updatedThenDeleted || change == .insertedThenDeleted || change == .deletedElsewhere
    }
    /// Whether the object was deleted in its context (not elsewhere): what the context's deleted set holds.
    var isDeletedHere: Bool { change == .deleted || change == .updatedThenDeleted || change == .insertedThenDeleted }
    /// Whether the object's values changed (or it was marked for conflict detection), deleted since or not.
    var isUpdated: Bool { change == .updated || change == .updatedThenDeleted }
    /// Whether the next save does anything with the object.
    var hasChanges: Bool { change != .none }

    // MARK: Transitions: changes

    /// `insert(_:)`, or undoing a saved deletion: the object joins a context as new.
    mutating func insert() {
        InternalChecks.expect(change == .none, "inserting an object whose state is \(change)")
        change = .inserted
    }

    /// `delete(_:)`, a delete rule, or an inaccessible fault handled as deleted.
    mutating func delete() {
        switch change {
        case .none: change = .deleted
        case .updated: change = .updatedThenDeleted
        case .inserted: change = .insertedThenDeleted
        case .deleted, .updatedThenDeleted, .insertedThenDeleted, .deletedElsewhere: break
        }
    }

    /// Undo of a deletion, re-inserting an inserted-then-deleted object, or the rollback merge policy bringing a
    /// deleted object back: the object is what it was before the deletion.
    mutating func undelete() {
        switch change {
        case .deleted: change = .none
        case .updatedThenDeleted: change = .updated
        case .insertedThenDeleted: change = .inserted
        case .none, .updated, .inserted, .deletedElsewhere: break
        }
    }

    /// A value of an object in the store changed (or `detectConflicts(for:)` marked it): the save writes it.
    mutating func update() {
        InternalChecks.expect(!isFault, "updating a fault")
        switch change {
        case .none: change = .updated
        case .deleted: change = .updatedThenDeleted
        case .updated, .updatedThenDeleted, .inserted, .insertedThenDeleted, .deletedElsewhere: break
        }
    }

    /// The object's changes were discarded (a refresh without merging, a merge policy reverting it): it is no longer
    /// updated; a deletion stays.
    mutating func discardUpdate() {
        switch change {
        case .updated: change = .none
        case .updatedThenDeleted: change = .deleted
        case .none, .inserted, .deleted, .insertedThenDeleted, .deletedElsewhere: break
        }
    }

    /// A save (to the store or the parent context) wrote the object's insertion or update: it matches its row now.
    mutating func save() {
        InternalChecks.expect(!isDeleted, "saving a deleted object's values")
        change = .none
    }

    /// The object left its context: its deletion or an insertion undone was saved, a rollback or an undo removed an
    /// insertion, or the context was reset. A fault stays a fault.
    mutating func leaveContext() {
        change = .none
    }

    /// A rollback brought an updated or deleted object back to its committed values.
    mutating func rollBack() {
        InternalChecks.expect(!isInserted, "rolling back an inserted object as an existing one")
        change = .none
    }

    /// The object's row is gone: another context deleted it and this context merged the deletion, or a fault found
    /// no row and was fulfilled as deleted. Its own changes are moot; an inserted object (which never had a row) is
    /// an inserted-then-deleted one, which the save leaves out.
    mutating func deleteElsewhere() {
        change = isInserted ? .insertedThenDeleted : .deletedElsewhere
    }

    // MARK: Transitions: faults

    /// The object's values were loaded (from a row, a snapshot, a parent's push).
    mutating func load() {
        isFault = false
    }

    /// The object's values were dropped: the next access loads them again.
    mutating func turnIntoFault() {
        InternalChecks.expect(!isUpdated, "turning an updated object into a fault without discarding its update")
        isFault = true
    }
}

extension ObjectLifeCycle: CustomStringConvertible {
    /// For example `inserted`, `deleted fault`.
    var description: String { isFault ? "\(change) fault" : "\(change)" }
}
