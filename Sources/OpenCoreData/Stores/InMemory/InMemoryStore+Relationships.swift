/// How the in-memory store keeps to-many members consistent with the relationships' single source of truth,
/// the way the SQLite layout does by construction:
/// - a one-to-many relationship's members are the rows whose inverse to-one points at the owner (the owner's
///   list only supplies the order);
/// - a many-to-many pair is one set of links: writing one side's members adds and removes links, which shows
///   on the other side too;
/// - a relationship without an inverse is the owner's own list.
///
/// So a context that saves a stale member list (for example under `NSOverwriteMergePolicy`) cannot leave two
/// sides that disagree.
extension InMemoryStore {
    /// Applies a save's to-one and to-many changes to the members lists of `rows` (copying any shared row it
    /// changes, so `previous` stays intact until the save is committed).
    static func applyRelationshipChanges(_ changes: StoreSaveChanges, journal: RowJournal) {
        var editor = MembersEditor(journal: journal)
        for delete in changes.deletes {
            guard let row = journal.original(delete.objectID) else { continue }
            editor.unlinkDeleted(row)
        }
        let written = changes.inserts.map { ($0.objectID, $0.toMany, [Int: StoreSaveChanges.MemberDiff]()) }
            + changes.updates.map { ($0.objectID, $0.toMany, $0.toManyChanges) }
        for (objectID, _, _) in written {
            editor.moveToOne(of: objectID, previous: journal.original(objectID))
        }
        for (objectID, toMany, diffs) in written {
            for (slot, members) in toMany.sorted(by: { $0.key < $1.key }) {
                editor.write(members, slot: slot, of: objectID, changes: diffs[slot])
            }
        }
    }

    /// Editing of members lists, through the save's journal (rows are copied before their first change).
    private struct MembersEditor {
        let journal: RowJournal

        var rows: RowLookup { RowLookup(journal: journal) }

        func mutableRow(_ objectID: NSManagedObjectID) -> Row? { journal.mutableRow(objectID) }

        /// The to-many slot of `relationship` in `objectID`'s entity.
        static func slot(of relationship: NSRelationshipDescription, in objectID: NSManagedObjectID) -> Int? {
            if case .toMany(let slot, _)? = objectID.entity.layout.slots[relationship.name] { return slot }
            return nil
        }

        mutating func remove(_ member: NSManagedObjectID, from owner: NSManagedObjectID, through relationship: NSRelationshipDescription) {
            guard let slot = Self.slot(of: relationship, in: owner), rows[owner]?.toMany[slot]?.contains(member) == true,
                  let row = mutableRow(owner) else { return }
            row.toMany[slot]?.removeAll { $0 == member }
        }

        mutating func append(_ member: NSManagedObjectID, to owner: NSManagedObjectID, through relationship: NSRelationshipDescription) {
            guard let slot = Self.slot(of: relationship, in: owner), rows[owner]?.toMany[slot]?.contains(member) != true,
                  let row = mutableRow(owner) else { return }
            row.toMany[slot, default: []].append(member)
        }

        /// A deleted row leaves its owners' and partners' lists.
        mutating func unlinkDeleted(_ row: Row) {
            let layout = row.objectID.entity.layout
            for (slot, relationship) in layout.toOneRelationships.enumerated() {
                guard let inverse = relationship.inverseRelationship, inverse.isToMany, let owner = row.snapshot.toOne[slot] else { continue }
                remove(row.objectID, from: owner, through: inverse)
            }
            for (slot, relationship) in layout.toManyRelationships.enumerated() {
                guard let inverse = relationship.inverseRelationship, inverse.isToMany else { continue }
                for partner in row.toMany[slot] ?? [] { remove(row.objectID, from: partner, through: inverse) }
            }
        }

        /// A row whose to-one changed leaves its old owner's list and joins the new owner's (at the end).
        mutating func moveToOne(of objectID: NSManagedObjectID, previous: Row?) {
            guard let row = rows[objectID] else { return }
            for (slot, relationship) in objectID.entity.layout.toOneRelationships.enumerated() {
                guard let inverse = relationship.inverseRelationship, inverse.isToMany else { continue }
                let old = previous?.snapshot.toOne[slot] ?? nil, new = row.snapshot.toOne[slot] ?? nil
                guard old != new else { continue }
                if let old { remove(objectID, from: old, through: inverse) }
                if let new { append(objectID, to: new, through: inverse) }
            }
        }

        /// A written members list: the order (and, for many-to-many, the links) of `objectID`'s relationship.
        mutating func write(_ members: [NSManagedObjectID], slot: Int, of objectID: NSManagedObjectID, changes: StoreSaveChanges.MemberDiff? = nil) {
            let relationship = objectID.entity.layout.toManyRelationships[slot]
            guard let row = mutableRow(objectID) else { return }
            let current = row.toMany[slot] ?? []
            let live = members.filter { rows[$0] != nil }
            guard let inverse = relationship.inverseRelationship else {
                row.toMany[slot] = live
                return
            }
            if !inverse.isToMany {
                // Membership is the members' to-one; the list gives the order of those that really point here.
                guard case .toOne(let inverseSlot, _)? = relationship.destinationEntity?.layout.slots[inverse.name] else { return }
                func pointsHere(_ member: NSManagedObjectID) -> Bool {
                    guard let memberRow = rows[member], inverseSlot < memberRow.snapshot.toOne.count else { return false }
                    return memberRow.snapshot.toOne[inverseSlot] == objectID
                }
                let listed = live.filter(pointsHere)
                let listedSet = Set(listed)
                row.toMany[slot] = listed + current.filter { !listedSet.contains($0) && pointsHere($0) }
                return
            }
            if let changes {
                // Many-to-many with the context's own additions and removals: links others made or removed since it
                // read the relationship stay as they are.
                let removed = Set(changes.removed), existing = Set(current)
                let added = changes.added.filter { rows[$0] != nil && !existing.contains($0) }
                var links = current.filter { !removed.contains($0) } + added
                if relationship.isOrdered {
                    let linkSet = Set(links)
                    let ordered = live.filter(linkSet.contains)
                    let orderedSet = Set(ordered)
                    links = ordered + links.filter { !orderedSet.contains($0) }
                }
                row.toMany[slot] = links
                for partner in changes.removed where existing.contains(partner) { remove(objectID, from: partner, through: inverse) }
                for partner in added { append(objectID, to: partner, through: inverse) }
                return
            }
            // Many-to-many: diff against the current links, then mirror on the partners.
            let wanted = Set(live), existing = Set(current)
            row.toMany[slot] = live
            for partner in current where !wanted.contains(partner) { remove(objectID, from: partner, through: inverse) }
            for partner in live where !existing.contains(partner) { append(objectID, to: partner, through: inverse) }
        }
    }
}

/// Reading rows during a save (`rows[id]`), through its journal.
struct RowLookup {
    let journal: RowJournal
    subscript(objectID: NSManagedObjectID) -> InMemoryStore.Row? { journal[objectID] }
}
