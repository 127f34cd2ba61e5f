/// How the built-in merge policies change objects to resolve conflicts (Apple's documented semantics, by property,
/// carried over to relationships and deletions: DEVIATIONS.md O19).
enum MergeResolution {
    /// Resolves the optimistic-locking conflicts of one save attempt, together (a many-to-many pair belongs to two
    /// objects): afterwards each object's committed snapshot is the store's row, so the retried save expects the
    /// store's version, and what the save writes is consistent — no saved object points at a row that is gone, both
    /// sides of every relationship agree.
    ///
    /// - Updated objects whose row was deleted elsewhere: the deletion wins; the object leaves the context and every
    ///   relationship of the others (as a merged deletion does).
    /// - Attributes and to-ones: overwrite keeps the context's values, object trump the context's where it changed
    ///   them, store trump the store's where the store changed them, rollback the store's. A to-one that takes the
    ///   store's value moves the object between the inverse to-manys without changing their owners.
    /// - Many-to-many pairs of a conflicting object: the same rule by pair; an ordered to-many keeps the context's
    ///   order for the members it keeps (store trump: the store's if the store changed it; rollback: the store's).
    /// - Deleted objects whose row changed: rollback brings them back with the store's values; the others delete
    ///   them and apply their delete rules to the relationships the store has now (deny throws the validation error).
    static func resolve(_ conflicts: [NSMergeConflict], policy: NSMergePolicyType) throws {
        guard policy != .errorMergePolicyType else { return }
        var byContext: [ObjectIdentifier: (context: NSManagedObjectContext, conflicts: [NSMergeConflict])] = [:]
        for conflict in conflicts {
            guard let context = conflict.sourceObject._context else { continue }
            byContext[ObjectIdentifier(context), default: (context, [])].conflicts.append(conflict)
        }
        for (context, list) in byContext.values { try resolve(list, policy: policy, in: context) }
    }

    private static func resolve(_ conflicts: [NSMergeConflict], policy: NSMergePolicyType, in context: NSManagedObjectContext) throws {
        // The to-ones each object in conflict changed, read before the rows deleted elsewhere leave the context: a
        // to-one the context pointed at such a row is its change all the same (the row being gone, it saves nil),
        // not a value it left alone that the store's may replace.
        var changedToOnes: [ObjectIdentifier: Set<Int>] = [:]
        for conflict in conflicts where conflict.persistedRow != nil {
            let object = conflict.sourceObject
            guard !object._isFault, let committed = object.committedSnapshot else { continue }
            let indices = object.toOneValues.indices.filter {
                object.toOneID(at: $0) != committed.toOne[$0] || queuedThroughOwnersList(object, toOne: $0, in: context)
            }
            if !indices.isEmpty { changedToOnes[ObjectIdentifier(object)] = Set(indices) }
        }
        // The members each list had when the context read it, before rows deleted elsewhere leave the lists and
        // resolving the to-ones moves objects between them: whether the store changed a list (a member it deleted
        // changes it too) is decided against these.
        var readBefore: [ObjectIdentifier: [Int: [NSManagedObjectID]]] = [:]
        for conflict in conflicts where conflict.persistedRow != nil && !conflict.sourceObject.committedToMany.isEmpty {
            readBefore[ObjectIdentifier(conflict.sourceObject)] = conflict.sourceObject.committedToMany
        }
        // Rows deleted elsewhere: gone, with every reference to them.
        context.forgetDeletedElsewhere(conflicts.filter { $0.persistedRow == nil }.map(\.sourceObject))
        let changed = conflicts.compactMap { conflict -> (object: NSManagedObject, row: ObjectSnapshot)? in
            guard let row = conflict.persistedRow, conflict.sourceObject._context === context else { return nil }
            return (conflict.sourceObject, row)
        }
        let returnedMembersOrder = ReturnedMembersOrder(changed: changed, in: context)
        var deletions: [(object: NSManagedObject, row: ObjectSnapshot)] = []
        var listsBefore: [ObjectIdentifier: [Int: [NSManagedObject]]] = [:]
        for (object, _) in changed {
            for (slot, value) in object.toManyValues.enumerated() {
                if case .members(let members) = value { listsBefore[ObjectIdentifier(object), default: [:]][slot] = members.objects }
            }
        }
        for (object, row) in changed {
            if object._isDeleted {
                if policy == .rollbackMergePolicyType { undelete(object, to: row, in: context) } else { deletions.append((object, row)) }
            } else {
                resolveValues(of: object, persisted: row, changedToOnes: changedToOnes[ObjectIdentifier(object)] ?? [], listsBefore: &listsBefore,
                              policy: policy, in: context)
            }
        }
        var decidedPairs: [PairKey: Bool] = [:]
        for (object, _) in changed where !object._isDeleted && object._context === context {
            resolveToManys(of: object, before: listsBefore[ObjectIdentifier(object)] ?? [:], readBefore: readBefore[ObjectIdentifier(object)] ?? [:],
                           decidedPairs: &decidedPairs, policy: policy, in: context)
        }
        for (object, row) in deletions {
            object.committedSnapshot = row
            context.persistentStoreCoordinator?.rowCache.store(row, for: object.objectID)
            try reapplyDeleteRules(of: object, deny: false, in: context)
        }
        for (object, _) in deletions { try reapplyDeleteRules(of: object, deny: true, in: context) }
        // An object that takes the store's to-one (rollback: all of them; the others: those the store changed and the
        // context did not win) may point at an object this save deletes.
        for (object, _) in changed where !object._isDeleted && object._context === context {
            applyDeleteRulesOfDeletedDestinations(to: object, in: context)
        }
        context.propagateDeletes()
        returnedMembersOrder.apply()
    }

    /// A resolved object points (with the store's values) at an object this save deletes: the deleted object's
    /// delete rule for it applies — cascade deletes it, nullify clears the to-one.
    private static func applyDeleteRulesOfDeletedDestinations(to object: NSManagedObject, in context: NSManagedObjectContext) {
        for (index, relationship) in object.layout.toOneRelationships.enumerated() where !relationship.isTransient {
            guard let destination = object.resolveToOne(at: index), destination._isDeleted, destination._context === context,
                  let inverse = relationship.inverseRelationship
            else { continue }
            switch inverse.deleteRule {
            case .cascadeDeleteRule:
                context.delete(object)
                return
            case .nullifyDeleteRule:
                object.setValue(nil, forKey: relationship.name)
            default:
                continue
            }
        }
    }

    /// Attributes and to-ones of an updated object in conflict.
    /// `changedToOnes`: the to-ones the context had changed before the rows deleted elsewhere left it.
    /// `listsBefore`: the realized lists before resolution; a list read again from the store here leaves it.
    private static func resolveValues(of object: NSManagedObject, persisted: ObjectSnapshot, changedToOnes: Set<Int>,
                                      listsBefore: inout [ObjectIdentifier: [Int: [NSManagedObject]]], policy: NSMergePolicyType,
                                      in context: NSManagedObjectContext) {
        let committed = object.committedSnapshot ?? persisted
        switch policy {
        case .errorMergePolicyType:
            return
        case .rollbackMergePolicyType:
            // The to-ones go back to the stored destinations, and the destinations' realized inverse to-manys follow
            // (reverting alone left the object listed by the destination it had been moved to). This restores stored
            // state, so it dirties no destination.
            for index in object.toOneValues.indices where object.toOneID(at: index) != persisted.toOne[index] {
                moveInInverse(object, toOne: index, to: persisted.toOne[index], in: context)
            }
            // Realized to-manys stay (resolveToManys puts the store's pairs back): they list what the context shows,
            // including moves of objects not in conflict that this save keeps.
            let realized = object.toManyValues
            let committedToMany = object.committedToMany
            context.revert(object, to: persisted)
            for (slot, value) in realized.enumerated() {
                if case .members = value { object.toManyValues[slot] = value }
            }
            object.committedToMany = committedToMany
            return
        case .overwriteMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType:
            let storeWins = policy == .mergeByPropertyStoreTrumpMergePolicyType
            // Overwrite writes every attribute of the context's object; its relationships below as object trump does
            // (a to-one the context did not change takes the store's value: writing the value it read would move the
            // object between owners behind their backs, or point it at a row deleted since).
            for index in object.attributeValues.indices where !object.layout.attributes[index].isTransient && policy != .overwriteMergePolicyType {
                let attribute = object.layout.attributes[index]
                let current = attribute.attributeType == .transformableAttributeType
                    ? TransformableValues.storedValue(from: object.transformedValues[index], attribute: attribute)
                    : object.attributeValues[index]
                let storeChanged = persisted.attributes[index] != committed.attributes[index]
                let weChanged = current != committed.attributes[index]
                if storeChanged && (storeWins || !weChanged) {
                    object.attributeValues[index] = persisted.attributes[index]
                    object.transformedValues[index] = nil
                }
            }
            for index in object.toOneValues.indices {
                let current = object.toOneID(at: index)
                let storeChanged = persisted.toOne[index] != committed.toOne[index]
                let weChanged = current != committed.toOne[index] || changedToOnes.contains(index)
                if storeChanged && (storeWins || !weChanged) && current != persisted.toOne[index] {
                    // The store holds this value: the inverse to-manys follow without becoming changes.
                    moveInInverse(object, toOne: index, to: persisted.toOne[index], in: context)
                } else if current != persisted.toOne[index], let stored = persisted.toOne[index],
                          let inverse = object.layout.toOneRelationships[index].inverseRelationship, inverse.isToMany {
                    // The context's value replaces one the store changed to: the owner the store has the object in
                    // loses it with this save, so it is saved too (its version moves, as a move made here moves it),
                    // with the store's row if this context has not changed it.
                    let owner = context.object(with: stored)
                    if !owner.hasChanges {
                        context.persistentStoreCoordinator?.rowCache.remove([stored])
                        context.refresh(owner, mergeChanges: false)
                    } else if case .toMany(let slot, _)? = owner.layout.slots[inverse.name], !owner.dirtyToManySlots.contains(slot) {
                        // Its list, unchanged here, is read again: it is written from the store's, less the object.
                        owner.toManyValues[slot] = .fault
                        owner.committedToMany[slot] = nil
                        // The owner's own resolution (if it conflicts too) starts from the store's list, not the copy.
                        listsBefore[ObjectIdentifier(owner)]?[slot] = nil
                    }
                    owner.primitiveChangeMember(inverse, object, add: false, inverseOfChange: true)
                }
            }
        }
        object.committedSnapshot = persisted
        context.persistentStoreCoordinator?.rowCache.store(persisted, for: object.objectID)
        object.awake(fromSnapshotEvents: .mergePolicy)
    }

    /// Points to-one `index` of `object` at `destinationID`, keeping the inverse relationships of the old and the
    /// new destination in step.
    static func relink(_ object: NSManagedObject, toOne index: Int, to destinationID: NSManagedObjectID?, in context: NSManagedObjectContext) {
        let relationship = object.layout.toOneRelationships[index]
        let old = object.resolveToOne(at: index)
        let new = destinationID.map { context.object(with: $0) }
        object.toOneValues[index] = new.map { .object($0) } ?? .none
        if let old { GraphMaintenance.unlink(object, relationship, old) }
        if let new { GraphMaintenance.link(object, relationship, new) }
    }

    /// Points to-one `index` of `object` at `destinationID`, taking the object out of the realized inverse to-many of
    /// its current destination and putting it in that of the new one, without marking either destination changed.
    /// To-many inverses only (a one-to-one relinks); a fault stays a fault.
    static func moveInInverse(_ object: NSManagedObject, toOne index: Int, to destinationID: NSManagedObjectID?, in context: NSManagedObjectContext) {
        guard let inverse = object.layout.toOneRelationships[index].inverseRelationship, inverse.isToMany else {
            relink(object, toOne: index, to: destinationID, in: context)
            return
        }
        func change(_ destination: NSManagedObject?, add: Bool) {
            guard let destination, case .toMany(let slot, _)? = destination.layout.slots[inverse.name],
                case .members(var members) = destination.toManyValues[slot], members.contains(object) != add
            else { return }
            if add { members.insert(object) } else { _ = members.remove(object) }
            destination.toManyValues[slot] = .members(members)
        }
        let destination = destinationID.map { context.object(with: $0) }
        change(object.resolveToOne(at: index), add: false)
        change(destination, add: true)
        object.toOneValues[index] = destination.map { .object($0) } ?? .none
    }

    /// Resolves a uniqueness-constraint conflict: the object-trump and overwrite policies merge the saved
    /// object's values into the stored object (an "upsert") and drop the duplicate; the store-trump and rollback
    /// policies keep the stored object and drop the saved duplicates' changes.
    static func resolve(_ conflict: NSConstraintConflict, policy: NSMergePolicyType) {
        guard let context = conflict.conflictingObjects.first?._context else { return }
        let savedWins = policy == .mergeByPropertyObjectTrumpMergePolicyType || policy == .overwriteMergePolicyType
        var survivor = conflict.databaseObject
        for object in conflict.conflictingObjects {
            guard object._isInserted else {
                // An updated object collides with another row.
                if savedWins, let other = survivor, other !== object {
                    context.delete(other)
                    context.propagateDeletes()
                    survivor = object
                } else if !savedWins, let committed = object.committedSnapshot {
                    context.revert(object, to: committed)
                }
                continue
            }
            guard let target = survivor else {
                survivor = object
                continue
            }
            if savedWins {
                let values = policy == .overwriteMergePolicyType ? object.allPersistentValues() : object.changedValues()
                for (key, value) in values where !(object.entity.propertiesByName[key]?.isTransient ?? true) {
                    guard target.entity.propertiesByName[key] != nil else { continue }
                    target.setValue(ValueConversion.isNull(value) ? nil : value, forKey: key)
                }
            }
            context.discardInsertedDuplicate(object)
        }
    }
}

extension NSManagedObject {
    /// Every persistent property value (nil as NSNull).
    func allPersistentValues() -> [String: Any] {
        var values: [String: Any] = [:]
        for property in entity.properties where !property.isTransient && !(property is NSFetchedPropertyDescription) {
            values[property.name] = value(forKey: property.name) ?? NSNull()
        }
        return values
    }
}
