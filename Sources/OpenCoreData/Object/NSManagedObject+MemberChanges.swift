/// A realized to-many relationship's unsaved changes as additions and removals against the members the store last
/// had, and for an ordered relationship this context changed, its order: what `refresh(_:mergeChanges: true)`
/// re-applies on top of the store's current members, so that members another context added or removed in the meantime
/// are kept (re-applying the whole member set would undo their changes).
struct MemberChanges {
    /// The to-many slot.
    let slot: Int
    /// Members this context added, in their order in the relationship.
    let added: [NSManagedObject]
    /// IDs of members this context removed.
    let removed: [NSManagedObjectID]
    /// The members in this context's order, for an ordered relationship it changed (nil otherwise: the store's order).
    let order: [NSManagedObject]?
}

extension NSManagedObject {
    /// The changes of each realized to-many relationship whose committed members are known, against those members:
    /// the relationships that gained or lost members, and the ordered ones this context changed (also when only
    /// their order changed). A relationship whose committed members were never read is not listed (its change is a
    /// whole new set).
    func memberChangesSinceCommit() -> [MemberChanges] {
        var result: [MemberChanges] = []
        let dirty = dirtyToManySlots
        for (slot, value) in toManyValues.enumerated() {
            guard case .members(let members) = value, let committed = committedToMany[slot] else { continue }
            let committedIDs = Set(committed)
            let current = members.objects
            let added = current.filter { !committedIDs.contains($0.objectID) }
            let currentIDs = Set(current.map(\.objectID))
            let removed = committed.filter { !currentIDs.contains($0) }
            let order = members.isOrdered && dirty.contains(slot) ? current : nil
            if !added.isEmpty || !removed.isEmpty || order != nil {
                result.append(MemberChanges(slot: slot, added: added, removed: removed, order: order))
            }
        }
        return result
    }

    /// Re-applies `changes` on top of the relationship's members as the store has them now (read if it is a fault):
    /// removed members leave it, added ones join it (``MemberMerge``).
    func reapply(_ changes: MemberChanges, in context: NSManagedObjectContext) {
        let base = realizedMembers(at: changes.slot)
        let merged = MemberMerge.apply(added: changes.added, removed: Set(changes.removed), order: changes.order, to: base.objects)
        toManyValues[changes.slot] = .members(RelationshipMembers(ordered: base.isOrdered, members: merged))
    }
}

/// A to-many relationship's change put on top of other members than those it was made against (a merge, a child's
/// save into its parent, an undo after other changes): the change's removals leave, its additions join, and the
/// other members stay. An ordered relationship whose change has an order keeps it for the members it lists; the
/// others follow in their order (new ones at the end when the change has no order).
enum MemberMerge {
    static func apply(added: [NSManagedObject], removed: Set<NSManagedObjectID>, order: [NSManagedObject]?, to base: [NSManagedObject]) -> [NSManagedObject] {
        var members: [NSManagedObject] = []
        var present = Set<ObjectIdentifier>()
        for object in base + added where !removed.contains(object.objectID) && present.insert(ObjectIdentifier(object)).inserted {
            members.append(object)
        }
        guard let order else { return members }
        var result: [NSManagedObject] = []
        var placed = Set<ObjectIdentifier>()
        for object in order + members where present.contains(ObjectIdentifier(object)) && placed.insert(ObjectIdentifier(object)).inserted {
            result.append(object)
        }
        return result
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
