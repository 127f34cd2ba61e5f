/// A realized to-many relationship's unsaved changes as additions and removals against the members the store last
/// had: what `refresh(_:mergeChanges: true)` re-applies on top of the store's current members, so that members another
/// context added or removed in the meantime are kept (re-applying the whole member set would undo their changes).
struct MemberChanges {
    /// The to-many slot.
    let slot: Int
    /// Members this context added, in their order in the relationship.
    let added: [NSManagedObject]
    /// IDs of members this context removed.
    let removed: [NSManagedObjectID]
}

extension NSManagedObject {
    /// The changes of each realized to-many relationship whose committed members are known, against those members.
    /// A relationship whose committed members were never read is not listed (its change is a whole new set).
    func memberChangesSinceCommit() -> [MemberChanges] {
        var result: [MemberChanges] = []
        for (slot, value) in toManyValues.enumerated() {
            guard case .members(let members) = value, let committed = committedToMany[slot] else { continue }
            let committedIDs = Set(committed)
            let current = members.objects
            let added = current.filter { !committedIDs.contains($0.objectID) }
            let currentIDs = Set(current.map(\.objectID))
            let removed = committed.filter { !currentIDs.contains($0) }
            if !added.isEmpty || !removed.isEmpty { result.append(MemberChanges(slot: slot, added: added, removed: removed)) }
        }
        return result
    }

    /// Re-applies `changes` on top of the relationship's members as the store has them now (read if it is a fault):
    /// removed members leave it, added ones join it (at the end of an ordered relationship).
    func reapply(_ changes: MemberChanges, in context: NSManagedObjectContext) {
        var members = realizedMembers(at: changes.slot)
        for objectID in changes.removed {
            if let member = context.registry[objectID] { members.remove(member) }
        }
        for member in changes.added { members.insert(member) }
        toManyValues[changes.slot] = .members(members)
    }
}

extension NSManagedObject {
    /// Takes those of `objects` (`identifiers` holds theirs) that the realized to-many at `slot` lists out of it,
    /// without marking this object changed: the store already holds the change (a deletion elsewhere, a member that
    /// moved elsewhere). `leaves` picks which of them leave (all by default). When any left, the committed members
    /// lose `committedLeaving` (by default the IDs of those that left). Returns whether any left.
    @discardableResult
    func dropRealizedMembers(among objects: [NSManagedObject], identifiers: Set<ObjectIdentifier>, at slot: Int,
                             committedLeaving: Set<NSManagedObjectID>? = nil,
                             where leaves: (NSManagedObject) -> Bool = { _ in true }) -> Bool {
        guard case .members(var members) = toManyValues[slot], members.count > 0 else { return false }
        // From whichever side is smaller: a large relationship and a few objects, or the reverse.
        let listed = members.count <= objects.count
            ? members.objects.filter { identifiers.contains(ObjectIdentifier($0)) }
            : objects.filter { members.contains($0) }
        let leaving = listed.filter(leaves)
        guard !leaving.isEmpty else { return false }
        for object in leaving { _ = members.remove(object) }
        toManyValues[slot] = .members(members)
        if var committed = committedToMany[slot] {   // read first: changing it in place would make the extras box
            let leavingIDs = committedLeaving ?? Set(leaving.map(\.objectID))
            committed.removeAll { leavingIDs.contains($0) }
            committedToMany[slot] = committed
        }
        return true
    }
}
