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

        // Where each merged object points now: its own values if realized (its unsaved changes included), else its row;
        // and where its row points (what the owners' committed members follow).
        var pointsAt: [NSManagedObjectID: [String: NSManagedObjectID]] = [:]
        var storedAt: [NSManagedObjectID: [String: NSManagedObjectID]] = [:]
        for object in merged {
            var row: ObjectSnapshot? = object.committedSnapshot
            if object._isFault {
                // From the store, not the row cache: another process's change of it reaches the cache only when
                // merged, and a stale row would take the object out of the list it is in.
                guard let snapshot = try? storeSnapshot(for: object.objectID) else { continue }
                row = snapshot
            }
            var destinations: [String: NSManagedObjectID] = [:], stored: [String: NSManagedObjectID] = [:]
            for index in object.layout.toOnesWithToManyInverse {
                let name = object.layout.toOneRelationships[index].name
                let destination = object._isFault ? row?.toOne[index] : object.toOneID(at: index)
                if let destination { destinations[name] = destination }
                if let storedDestination = row?.toOne[index] { stored[name] = storedDestination }
            }
            pointsAt[object.objectID] = destinations
            storedAt[object.objectID] = stored
        }

        var realigned: [NSManagedObject] = []
        // Members that point elsewhere now leave; the committed members lose those whose row points elsewhere.
        for (ownerID, entry) in owners {
            for (slot, inverse) in entry.slots {
                let left = entry.owner.dropRealizedMembers(among: merged, identifiers: mergedObjects, at: slot, committedLeaving: []) { object in
                    pointsAt[object.objectID].map { $0[inverse] != ownerID } ?? false
                }
                if left { realigned.append(entry.owner) }
                let leavingCommitted = Set(merged.filter { storedAt[$0.objectID].map { $0[inverse] != ownerID } ?? false }.map(\.objectID))
                if var committed = entry.owner.committedToMany[slot], committed.contains(where: leavingCommitted.contains) {
                    committed.removeAll { leavingCommitted.contains($0) }
                    entry.owner.committedToMany[slot] = committed
                }
            }
        }
        // Merged objects join the realized to-many of the owner they point at, and the committed members of the owner
        // their row points at.
        for object in merged {
            for (inverse, ownerID) in pointsAt[object.objectID] ?? [:] {
                guard let entry = owners[ownerID] else { continue }
                for (slot, slotInverse) in entry.slots where slotInverse == inverse {
                    guard case .members(var members) = entry.owner.toManyValues[slot], !members.contains(object) else { continue }
                    members.insert(object)
                    entry.owner.toManyValues[slot] = .members(members)
                    realigned.append(entry.owner)
                }
            }
            for (inverse, ownerID) in storedAt[object.objectID] ?? [:] {
                guard let entry = owners[ownerID] else { continue }
                for (slot, slotInverse) in entry.slots where slotInverse == inverse {
                    if var committed = entry.owner.committedToMany[slot], !committed.contains(object.objectID) {   // read first, as dropRealizedMembers does
                        committed.append(object.objectID)
                        entry.owner.committedToMany[slot] = committed
                    }
                }
            }
        }
        for owner in realigned { eventChanges.refreshed.insert(owner) }
    }

    /// After `objects` went back to their committed values (a rollback): a realized to-many that left one of them out
    /// because of its unsaved move elsewhere (``leaveMembersMovedElsewhere``), or that does not list one whose to-one
    /// points at its owner, is read again — the move is gone. One pass over the registered objects; owners that were
    /// themselves rolled back are faults already.
    func rereadInverseToManys(listing objects: [NSManagedObject]) {
        let reverted = Set(objects.filter { !$0._isFault && $0._context === self && !$0.layout.toOnesWithToManyInverse.isEmpty }.map(ObjectIdentifier.init))
        guard !reverted.isEmpty else { return }
        let revertedIDs = Set(objects.filter { reverted.contains(ObjectIdentifier($0)) }.map(\.objectID))
        for owner in registry.values where !owner._isFault {
            for (slot, value) in owner.toManyValues.enumerated() {
                guard case .members(let members) = value, let inverse = owner.layout.toManyRelationships[slot].inverseRelationship, !inverse.isToMany
                else { continue }
                let committed = owner.committedToMany[slot] ?? []
                let leftOut = committed.contains { id in
                    guard revertedIDs.contains(id), let member = registry[id] else { return false }
                    return !members.contains(member)
                }
                let pointingHere = !leftOut && objects.contains { object in
                    guard reverted.contains(ObjectIdentifier(object)), case .toOne(let index, _)? = object.layout.slots[inverse.name] else { return false }
                    return object.toOneID(at: index) == owner.objectID && !members.contains(object)
                }
                if leftOut || pointingHere {
                    owner.toManyValues[slot] = .fault
                    owner.committedToMany[slot] = nil
                }
            }
        }
    }

    /// An object's row read from its store (a child context: from its parent), put in the row cache.
    func storeSnapshot(for objectID: NSManagedObjectID) throws -> ObjectSnapshot? {
        guard _parent == nil, let coordinator = persistentStoreCoordinator, coordinator.store(for: objectID) != nil else {
            return try snapshot(for: objectID)
        }
        return try coordinator.readSnapshot(of: objectID, for: storeReadContext, recordingIn: readRowCache(coordinator))
    }
}
