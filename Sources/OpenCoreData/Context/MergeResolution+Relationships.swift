extension MergeResolution {
    // MARK: To-manys of a conflicting object

    /// Whether this context put `object` into its to-one `index`'s destination through the destination's list, the
    /// to-one already naming it (read before the list, which did not have it): the to-one shows no change, the list
    /// does, and it is the context's change all the same.
    static func queuedThroughOwnersList(_ object: NSManagedObject, toOne index: Int, in context: NSManagedObjectContext) -> Bool {
        guard let inverse = object.layout.toOneRelationships[index].inverseRelationship, inverse.isToMany,
              let ownerID = object.toOneID(at: index), let owner = context.registeredObject(for: ownerID),
              case .toMany(let slot, _)? = owner.layout.slots[inverse.name], owner.dirtyToManySlots.contains(slot),
              case .members(let members) = owner.toManyValues[slot], members.contains(object),
              let read = owner.committedToMany[slot] else { return false }
        return !read.contains(object.objectID)
    }

    /// A many-to-many pair as one side names it: `owner`'s `relationship` lists `member`.
    struct PairKey: Hashable {
        let owner: NSManagedObjectID
        let relationship: String
        let member: NSManagedObjectID
    }

    /// Resolves the realized to-manys of an updated object in conflict against the members the store has now: a
    /// many-to-many by pair, a to-many whose inverse is a to-one by its members' to-ones, in order for an ordered one.
    /// Afterwards the committed members are the store's, and the other side of every pair agrees.
    /// `before` holds the realized members as they were before the conflicts' to-ones were resolved (a to-one that
    /// takes the store's value appends the object to its owner's list; the owner's resolution places the store's
    /// members itself).
    /// A many-to-many's lists are taken as they are now: the pairs the partners' resolutions already decided
    /// (`decidedPairs`) are in them as decided, both as members and as committed members, and keep that value here.
    /// `readBefore` holds the committed members as the context read them, before any resolution moved objects between
    /// committed lists: store trump keeps the store's order of a list the store changed since then.
    static func resolveToManys(of object: NSManagedObject, before: [Int: [NSManagedObject]], readBefore: [Int: [NSManagedObjectID]],
                               decidedPairs: inout [PairKey: Bool], policy: NSMergePolicyType, in context: NSManagedObjectContext) {
        for (slot, relationship) in object.layout.toManyRelationships.enumerated() where !relationship.isTransient {
            guard let inverse = relationship.inverseRelationship else { continue }
            guard case .members(let realized) = object.toManyValues[slot] else {
                if policy == .rollbackMergePolicyType && !inverse.isToMany && !object._isUpdated
                    && membersChangeWithTheSave(object, relationship: relationship, inverse: inverse, in: context) {
                    // A rolled-back owner whose list this context never read still gains or loses members with this
                    // save (their to-ones changed): it is written, with the store's values, as below.
                    context.noteUpdated(object)
                }
                continue
            }
            let members = RelationshipMembers(ordered: relationship.isOrdered, members: inverse.isToMany ? realized.objects : before[slot] ?? realized.objects)
            let stored = context.committedToManyIDs(of: object, relationship: relationship)
            let committed = object.committedToMany[slot] ?? stored
            let dirty = object.dirtyToManySlots.contains(slot)
            let resolved = inverse.isToMany
                ? resolvedPairs(of: object, relationship: relationship, members: members.objects, stored: stored, committed: committed, dirty: dirty,
                                inverse: inverse, decidedPairs: &decidedPairs, policy: policy, in: context)
                : resolvedMembers(of: object, members: members.objects, stored: stored, storeChanged: stored != (readBefore[slot] ?? committed), dirty: dirty,
                                  relationship: relationship, inverse: inverse, policy: policy, in: context)
            object.toManyValues[slot] = .members(RelationshipMembers(ordered: relationship.isOrdered, members: resolved))
            object.committedToMany[slot] = stored
            // A rolled-back owner whose members change with this save all the same (objects not in conflict moved in
            // or out) is written, with the store's values: its version moves with its membership, as any owner's does,
            // and an ordered list gets its new members' order.
            if policy == .rollbackMergePolicyType && !inverse.isToMany && Set(resolved.map(\.objectID)) != Set(stored) {
                context.noteToManyChanged(object, slot: slot)
            }
        }
    }

    /// Whether the save moves members into or out of `object`'s to-many `relationship` (whose inverse is a to-one)
    /// that this context has not read: the store's members against the to-ones of the objects the save writes.
    private static func membersChangeWithTheSave(_ object: NSManagedObject, relationship: NSRelationshipDescription, inverse: NSRelationshipDescription,
                                                 in context: NSManagedObjectContext) -> Bool {
        let stored = Set(context.committedToManyIDs(of: object, relationship: relationship))
        for member in [context.insertedSet, context.updatedSet, context.deletedSet].joined() where !member._isFault {
            guard case .toOne(let index, _)? = member.layout.slots[inverse.name],
                  relationship.destinationEntity.map(member.entity.isKindOf(entity:)) ?? false
            else { continue }
            let pointsHere = !member._isDeleted && member.toOneID(at: index) == object.objectID
            if pointsHere != stored.contains(member.objectID) { return true }
        }
        return false
    }

    /// A many-to-many's members after resolution, pair by pair: object trump and overwrite the context's for a pair it
    /// changed, store trump the store's for a pair the store changed, rollback the store's; otherwise the store's. A
    /// pair counts as changed by the context if either side's list changed it (the two sides may have been read at
    /// different times), so both sides decide alike. The partners' realized sides follow.
    private static func resolvedPairs(of object: NSManagedObject, relationship: NSRelationshipDescription, members: [NSManagedObject], stored: [NSManagedObjectID],
                                      committed: [NSManagedObjectID], dirty: Bool, inverse: NSRelationshipDescription, decidedPairs: inout [PairKey: Bool],
                                      policy: NSMergePolicyType, in context: NSManagedObjectContext) -> [NSManagedObject] {
        let current = Set(members.map(\.objectID)), had = Set(committed), inStore = Set(stored)
        var result = members
        var seen = Set<NSManagedObjectID>()
        for id in stored + members.map(\.objectID) + committed where seen.insert(id).inserted {
            let isStored = inStore.contains(id)
            var sides = [(has: current.contains(id), had: had.contains(id), dirty: dirty)]
            let partner = context.registry[id]
            if let partner, let side = pairSide(of: partner, through: inverse, member: object) { sides.append(side) }
            let changedSide = sides.first { $0.dirty && $0.has != $0.had }
            let has = (changedSide ?? sides[0]).has, wasThere = (changedSide ?? sides[0]).had
            let value: Bool
            if let decided = decidedPairs[PairKey(owner: object.objectID, relationship: relationship.name, member: id)] {
                // The partner's resolution decided this pair (and put it in both lists so): it stands.
                value = decided
            } else {
                switch policy {
                case .overwriteMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType: value = changedSide != nil ? has : isStored
                case .mergeByPropertyStoreTrumpMergePolicyType: value = isStored != wasThere ? isStored : (changedSide != nil ? has : isStored)
                default: value = isStored
                }
                decidedPairs[PairKey(owner: id, relationship: inverse.name, member: object.objectID)] = value
            }
            guard value != current.contains(id) || (partner.flatMap { pairSide(of: $0, through: inverse, member: object)?.has } ?? value) != value else { continue }
            let member = partner ?? context.object(with: id)
            if value && member._isDeleted {
                // A pair the policy keeps with a partner this context deletes stays listed on this side: the
                // partner's delete rules, applied again to what the store has now, decide (deny refuses the save).
                if !result.contains(where: { $0 === member }) { result.append(member) }
                continue
            }
            if value { if !result.contains(where: { $0 === member }) { result.append(member) } } else { result.removeAll { $0 === member } }
            setMember(object, of: member, through: inverse, present: value)
        }
        return result
    }

    /// One side of a many-to-many pair as `owner` has it: whether its realized list holds `member`, whether it did
    /// when read, and whether the context changed the list.
    private static func pairSide(of owner: NSManagedObject, through relationship: NSRelationshipDescription, member: NSManagedObject) -> (has: Bool, had: Bool, dirty: Bool)? {
        guard !owner._isFault, case .toMany(let slot, _)? = owner.layout.slots[relationship.name],
              case .members(let members) = owner.toManyValues[slot]
        else { return nil }
        let has = members.contains(member)
        return (has, owner.committedToMany[slot]?.contains(member.objectID) ?? has, owner.dirtyToManySlots.contains(slot))
    }

    /// A to-many whose inverse is a to-one, after resolution: the store's members but those this context moved away,
    /// and the context's members that still point here; an ordered one in the context's order for a list it changed
    /// (store trump: the store's if the store changed it; rollback: the store's), the others after them.
    private static func resolvedMembers(of object: NSManagedObject, members: [NSManagedObject], stored: [NSManagedObjectID], storeChanged: Bool,
                                        dirty: Bool, relationship: NSRelationshipDescription, inverse: NSRelationshipDescription,
                                        policy: NSMergePolicyType, in context: NSManagedObjectContext) -> [NSManagedObject] {
        func pointsHere(_ member: NSManagedObject) -> Bool? {
            guard !member._isFault, case .toOne(let slot, _)? = member.layout.slots[inverse.name] else { return nil }
            return member.toOneID(at: slot) == object.objectID
        }
        let storedObjects = stored.map { context.object(with: $0) }.filter { member in
            !member._isDeleted && !(member.hasChanges && pointsHere(member) == false)
        }
        var memberSet = Set(storedObjects.map(ObjectIdentifier.init))
        // A member this context moved here is here; one it did not change is here if the store has it here (a fault,
        // or a copy read before the store moved it).
        let storedIDs = Set(stored)
        let kept = members.filter { member in
            !member._isDeleted && (member.hasChanges && pointsHere(member) == true || storedIDs.contains(member.objectID) && pointsHere(member) != false)
                || storedIDs.contains(member.objectID) && !member.hasChanges
        }
        for member in kept { memberSet.insert(ObjectIdentifier(member)) }
        let storeOrder = storedObjects
        let contextOrder = kept
        let storeFirst = !dirty || policy == .rollbackMergePolicyType
            || (policy == .mergeByPropertyStoreTrumpMergePolicyType && storeChanged)
        var result: [NSManagedObject] = []
        var placed = Set<ObjectIdentifier>()
        for member in (storeFirst ? storeOrder + contextOrder : contextOrder + storeOrder)
        where memberSet.contains(ObjectIdentifier(member)) && placed.insert(ObjectIdentifier(member)).inserted {
            result.append(member)
        }
        return result
    }

    /// Puts `object` in (or takes it out of) the realized `inverse` to-many of `partner`, without making it a change:
    /// the store will hold it so. The partner's committed members follow.
    private static func setMember(_ object: NSManagedObject, of partner: NSManagedObject, through inverse: NSRelationshipDescription, present: Bool) {
        guard !partner._isFault, case .toMany(let slot, _)? = partner.layout.slots[inverse.name] else { return }
        if case .members(var members) = partner.toManyValues[slot], members.contains(object) != present {
            if present { members.insert(object) } else { _ = members.remove(object) }
            partner.toManyValues[slot] = .members(members)
        }
        if var committed = partner.committedToMany[slot], committed.contains(object.objectID) != present {
            if present { committed.append(object.objectID) } else { committed.removeAll { $0 == object.objectID } }
            partner.committedToMany[slot] = committed
        }
    }

    // MARK: Deleted objects in conflict

    /// The rollback policy brings back a deleted object whose row changed: the store's values, its to-ones' inverse
    /// to-manys and its many-to-many partners list it again (the store keeps those rows); its to-manys read the store.
    static func undelete(_ object: NSManagedObject, to persisted: ObjectSnapshot, in context: NSManagedObjectContext) {
        object.lifeCycle.undelete()
        context.deletedSet.remove(object)
        context.unpropagatedDeletes.remove(object)
        for index in object.toOneValues.indices where object.toOneID(at: index) != persisted.toOne[index] {
            moveInInverse(object, toOne: index, to: persisted.toOne[index], in: context)
        }
        for relationship in object.layout.toManyRelationships where !relationship.isTransient {
            guard let inverse = relationship.inverseRelationship, inverse.isToMany else { continue }
            for id in context.committedToManyIDs(of: object, relationship: relationship) {
                guard let partner = context.registry[id], !partner._isDeleted else { continue }
                setMember(object, of: partner, through: inverse, present: true)
            }
        }
        context.revert(object, to: persisted)
    }

    /// A deletion that goes ahead although the row changed since the context read it: its delete rules apply to the
    /// relationships the store has now, which the context may not have seen (nullify clears them, cascade deletes the
    /// destinations, deny refuses the save with `NSValidationRelationshipDeniedDeleteError`). Destinations this
    /// context moved away are left alone; the others are read from the store first, so what the save writes for them
    /// is the store's row with the rule applied.
    ///
    /// `deny`: false applies the nullify and cascade rules, true only checks the deny rules — after every deletion's
    /// other rules ran, so that a destination another deletion's cascade deletes no longer counts.
    static func reapplyDeleteRules(of object: NSManagedObject, deny: Bool, in context: NSManagedObjectContext) throws {
        for relationship in object.layout.toManyRelationships where !relationship.isTransient {
            guard let inverse = relationship.inverseRelationship, relationship.deleteRule != .noActionDeleteRule,
                  (relationship.deleteRule == .denyDeleteRule) == deny
            else { continue }
            for id in context.committedToManyIDs(of: object, relationship: relationship) {
                let destination = context.object(with: id)
                guard !destination._isDeleted, !movedAway(destination, from: object, inverse: inverse) else { continue }
                if deny {
                    throw ValidationErrors.make(NSValidationRelationshipDeniedDeleteError, object: object, key: relationship.name, value: destination,
                                                message: "The deny rule of '\(relationship.name)' refuses the deletion: the store relates an object to it that this context had not read.")
                }
                if !destination.hasChanges {
                    context.persistentStoreCoordinator?.rowCache.remove([destination.objectID])
                    context.refresh(destination, mergeChanges: false)
                }
                switch relationship.deleteRule {
                case .cascadeDeleteRule:
                    // Its own rules reach the owners its to-ones name (a nullify takes it out of their lists): those
                    // this context has not changed are read from the store too, or the save would write a copy read
                    // before another context changed them.
                    refreshUnchangedOwners(of: destination, in: context)
                    context.delete(destination)
                default:
                    if inverse.isToMany {
                        destination.mutableSetValue(forKey: inverse.name).remove(object)
                    } else {
                        destination.setValue(nil, forKey: inverse.name)
                    }
                }
            }
        }
    }

    /// Reads from the store the objects `object`'s to-ones point at through a to-many inverse that this context has
    /// not changed (what a deletion of `object` then writes for them is the store's row less `object`).
    static func refreshUnchangedOwners(of object: NSManagedObject, in context: NSManagedObjectContext) {
        object.fireFaultIfNeeded()
        for (index, relationship) in object.layout.toOneRelationships.enumerated() where !relationship.isTransient {
            guard relationship.inverseRelationship?.isToMany == true, let ownerID = object.toOneID(at: index), !ownerID.isTemporaryID else { continue }
            let owner = context.registry[ownerID]
            if let owner, owner.hasChanges || owner._isDeleted { continue }
            // A fault (or an owner not registered yet) reads the row when the rule reaches it: not from the
            // coordinator's cache, which may be older.
            context.persistentStoreCoordinator?.rowCache.remove([ownerID])
            if let owner, !owner._isFault { context.refresh(owner, mergeChanges: false) }
        }
    }

    /// Whether this context has moved `destination` out of `object`'s relationship (an unsaved change).
    private static func movedAway(_ destination: NSManagedObject, from object: NSManagedObject, inverse: NSRelationshipDescription) -> Bool {
        guard !destination._isFault, destination.hasChanges else { return false }
        switch destination.layout.slots[inverse.name] {
        case .toOne(let slot, _)?:
            return destination.toOneID(at: slot) != object.objectID
        case .toMany(let slot, _)?:
            if case .members(let members) = destination.toManyValues[slot] { return !members.contains(object) }
            return false
        default:
            return false
        }
    }
}
