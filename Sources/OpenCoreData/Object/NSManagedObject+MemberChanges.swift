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
