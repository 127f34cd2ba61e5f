/// How the built-in merge policies change objects to resolve conflicts (Apple's documented semantics).
enum MergeResolution {
    /// Resolves an optimistic-locking conflict: afterwards the object's committed snapshot is the store's row,
    /// so the retried save expects the store's version.
    static func resolve(_ conflict: NSMergeConflict, policy: NSMergePolicyType) {
        let object = conflict.sourceObject
        guard let context = object._context else { return }
        guard let persisted = conflict.persistedRow else {
            // The row was deleted in the store: the deletion wins; the object's changes are dropped.
            context.forgetChangesAndDelete(object)
            return
        }
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
            // Realized to-manys stay: they list what the context shows, including moves of objects not in conflict
            // that this save keeps (faulting them would reload the store's list without those moves).
            let realized = object.toManyValues
            context.revert(object, to: persisted)
            for (slot, value) in realized.enumerated() {
                if case .members = value { object.toManyValues[slot] = value }
            }
            return
        case .overwriteMergePolicyType:
            break
        case .mergeByPropertyStoreTrumpMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType:
            let storeWins = policy == .mergeByPropertyStoreTrumpMergePolicyType
            for index in object.attributeValues.indices where !object.layout.attributes[index].isTransient {
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
                let weChanged = current != committed.toOne[index]
                if storeChanged && (storeWins || !weChanged) {
                    relink(object, toOne: index, to: persisted.toOne[index], in: context)
                }
            }
        }
        object.committedSnapshot = persisted
        context.persistentStoreCoordinator?.rowCache.store(persisted, for: object.objectID)
        object.awake(fromSnapshotEvents: .mergePolicy)
    }

    /// Points to-one `index` of `object` at `destinationID`, keeping the inverse relationships of the old and the
    /// new destination in step.
    private static func relink(_ object: NSManagedObject, toOne index: Int, to destinationID: NSManagedObjectID?, in context: NSManagedObjectContext) {
        let relationship = object.layout.toOneRelationships[index]
        let old = object.resolveToOne(at: index)
        let new = destinationID.map { context.object(with: $0) }
        object.toOneValues[index] = new.map { .object($0) } ?? .none
        if let old { GraphMaintenance.unlink(object, relationship, old) }
        if let new { GraphMaintenance.link(object, relationship, new) }
    }

    /// Takes `object` out of the realized inverse to-many of its current to-one destination and puts it in that of
    /// `destinationID`'s, without marking either destination changed. To-many inverses only; a fault stays a fault.
    private static func moveInInverse(_ object: NSManagedObject, toOne index: Int, to destinationID: NSManagedObjectID?, in context: NSManagedObjectContext) {
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
        change(object.resolveToOne(at: index), add: false)
        change(destinationID.map { context.object(with: $0) }, add: true)
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
