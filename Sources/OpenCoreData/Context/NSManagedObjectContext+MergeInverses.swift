extension NSManagedObjectContext {
    /// After a merge, makes this context's realized to-many relationships agree with the to-one sides of the merged
    /// objects: each to-many that lists a merged object lists it exactly when the object points back at its owner.
    ///
    /// A save lists the rows it wrote, and need not list the destinations of a moved object: a remote save or
    /// persistent history lists only changed rows, and a destination the rollback merge policy reverted is not
    /// written at all. Refreshing the merged objects alone left such a destination listing an object that had moved
    /// away (found by the concurrency stress suite). The owners are not marked changed: the store already holds the
    /// to-one side, which is the one it stores.
    ///
    /// Costs nothing unless some merged object has a to-one with a to-many inverse; then one pass over the
    /// registered objects finds the realized inverses, and only if there are any are the merged faults' rows read
    /// (from the row cache, or the store, where their next firing finds them).
    func realignInverseToManys(withMerged objectIDs: Set<NSManagedObjectID>) {
        let merged = objectIDs.compactMap { registry[$0] }.filter { !$0._isDeleted && !$0.layout.toOnesWithToManyInverse.isEmpty }
        guard !merged.isEmpty else { return }
        let mergedObjects = Set(merged.map(ObjectIdentifier.init))
        // Realized to-many slots whose inverse is a to-one, by owner.
        var owners: [NSManagedObjectID: (owner: NSManagedObject, slots: [(slot: Int, inverse: String)])] = [:]
        for owner in registry.values where !owner._isFault && !owner._isDeleted {
            var slots: [(slot: Int, inverse: String)] = []
            for (slot, value) in owner.toManyValues.enumerated() {
                guard case .members = value, let inverse = owner.layout.toManyRelationships[slot].inverseRelationship,
                    !inverse.isToMany
                else { continue }
                slots.append((slot, inverse.name))
            }
            if !slots.isEmpty { owners[owner.objectID] = (owner, slots) }
        }
        guard !owners.isEmpty else { return }

        // Where each merged object points now: its own values if realized (its unsaved changes included), else its row.
        var pointsAt: [NSManagedObjectID: [String: NSManagedObjectID]] = [:]
        for object in merged {
            var row: ObjectSnapshot?
            if object._isFault {
                guard let snapshot = try? snapshot(for: object.objectID) else { continue }
                row = snapshot
            }
            var destinations: [String: NSManagedObjectID] = [:]
            for index in object.layout.toOnesWithToManyInverse {
                let destination = if let row { row.toOne[index] } else { object.toOneID(at: index) }
                if let destination { destinations[object.layout.toOneRelationships[index].name] = destination }
            }
            pointsAt[object.objectID] = destinations
        }

        var realigned: [NSManagedObject] = []
        // Members that point elsewhere now leave.
        for (ownerID, entry) in owners {
            for (slot, inverse) in entry.slots {
                let left = entry.owner.dropRealizedMembers(among: merged, identifiers: mergedObjects, at: slot) { object in
                    pointsAt[object.objectID].map { $0[inverse] != ownerID } ?? false
                }
                if left { realigned.append(entry.owner) }
            }
        }
        // Merged objects join the realized to-many of the owner they point at.
        for object in merged {
            for (inverse, ownerID) in pointsAt[object.objectID] ?? [:] {
                guard let entry = owners[ownerID] else { continue }
                for (slot, slotInverse) in entry.slots where slotInverse == inverse {
                    guard case .members(var members) = entry.owner.toManyValues[slot], !members.contains(object) else { continue }
                    members.insert(object)
                    entry.owner.toManyValues[slot] = .members(members)
                    if var committed = entry.owner.committedToMany[slot] {   // read first, as dropRealizedMembers does
                        committed.append(object.objectID)
                        entry.owner.committedToMany[slot] = committed
                    }
                    realigned.append(entry.owner)
                }
            }
        }
        for owner in realigned { eventChanges.refreshed.insert(owner) }
    }

    /// After `objects` went back to their committed values (a rollback): a realized to-many that does not list one of
    /// them although the object's to-one points at its owner is read again. Its list was read while the object had an
    /// unsaved move elsewhere, which it honoured (``leaveMembersMovedElsewhere``); the move is gone now. Owners that
    /// were themselves rolled back are faults already.
    func rereadInverseToManys(listing objects: [NSManagedObject]) {
        for object in objects where !object._isFault && object._context === self {
            for index in object.layout.toOnesWithToManyInverse {
                guard let ownerID = object.toOneID(at: index), let owner = registry[ownerID], !owner._isFault,
                      let inverse = object.layout.toOneRelationships[index].inverseRelationship,
                      case .toMany(let slot, _)? = owner.layout.slots[inverse.name],
                      case .members(let members) = owner.toManyValues[slot], !members.contains(object)
                else { continue }
                owner.toManyValues[slot] = .fault
            }
        }
    }
}
