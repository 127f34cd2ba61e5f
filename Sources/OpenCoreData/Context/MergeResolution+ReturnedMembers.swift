extension MergeResolution {
    /// The ordered lists of owners not in conflict that resolving may give members back to: a rolled-back move or
    /// deletion (or a to-one that takes the store's value) returns an object to the list the store has it in, and
    /// returning appends. Captured before resolving, put in order after: an owner this context changed keeps its
    /// order for the members it had and lists the returned ones after them, in the order it read them (the store's:
    /// an owner not in conflict has not changed there); an owner it did not change shows the order it read.
    struct ReturnedMembersOrder {
        private var lists: [(owner: NSManagedObject, slot: Int, before: Set<ObjectIdentifier>, read: [NSManagedObjectID]?)] = []
        /// The objects in conflict: only they can return (a list read again while resolving may list others anew).
        private let inConflict: Set<ObjectIdentifier>

        /// Captures the realized ordered lists that the to-ones of `changed` name, as they are, as read, or as stored.
        init(changed: [(object: NSManagedObject, row: ObjectSnapshot)], in context: NSManagedObjectContext) {
            let inConflict = Set(changed.map { ObjectIdentifier($0.object) })
            self.inConflict = inConflict
            var seen = Set<[ObjectIdentifier]>()
            for (object, row) in changed where !object._isFault {
                for (index, relationship) in object.layout.toOneRelationships.enumerated() where !relationship.isTransient {
                    guard let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered else { continue }
                    for id in [object.toOneID(at: index), object.committedSnapshot?.toOne[index] ?? nil, row.toOne[index]] {
                        guard let id, let owner = context.registry[id], !inConflict.contains(ObjectIdentifier(owner)), !owner._isFault,
                              case .toMany(let slot, _)? = owner.layout.slots[inverse.name], case .members(let members) = owner.toManyValues[slot],
                              seen.insert([ObjectIdentifier(owner), ObjectIdentifier(inverse)]).inserted
                        else { continue }
                        // A deleted member still listed is not there: undone (rollback), it returns.
                        lists.append((owner, slot, Set(members.objects.filter { !$0._isDeleted }.map(ObjectIdentifier.init)), owner.committedToMany[slot]))
                    }
                }
            }
        }

        /// Puts the members returned since the capture in the order described above.
        func apply() {
            for (owner, slot, before, read) in lists {
                // A list read again while resolving (its committed members changed) is in the store's order already.
                guard case .members(let members) = owner.toManyValues[slot], owner.committedToMany[slot] == read else { continue }
                let objects = members.objects
                let returned = objects.filter { !before.contains(ObjectIdentifier($0)) && inConflict.contains(ObjectIdentifier($0)) }
                guard !returned.isEmpty else { continue }
                var position: [NSManagedObjectID: Int] = [:]
                for (index, id) in (owner.committedToMany[slot] ?? []).enumerated() { position[id] = index }
                func readOrder(_ list: [NSManagedObject]) -> [NSManagedObject] {
                    list.enumerated().sorted { a, b in
                        (position[a.element.objectID] ?? Int.max, a.offset) < (position[b.element.objectID] ?? Int.max, b.offset)
                    }.map(\.element)
                }
                let ordered = owner.dirtyToManySlots.contains(slot)
                    ? objects.filter { object in !returned.contains { $0 === object } } + readOrder(returned)
                    : readOrder(objects)
                guard ordered.map(ObjectIdentifier.init) != objects.map(ObjectIdentifier.init) else { continue }
                owner.toManyValues[slot] = .members(RelationshipMembers(ordered: true, members: ordered))
            }
        }
    }
}
