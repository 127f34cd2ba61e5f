/// A context's registered objects by object ID, held strongly, keyed without `NSObject`'s dynamic hashing and
/// `Any`-boxing equality (`ObjectIDKey`). Unchanged objects nobody else holds are let go by `removeReleasable`.
struct ObjectRegistry {
    private var objects: [ObjectIDKey: NSManagedObject] = [:]

    /// The object registered under `objectID`; setting nil unregisters it.
    subscript(objectID: NSManagedObjectID) -> NSManagedObject? {
        get { objects[ObjectIDKey(objectID)] }
        _modify { yield &objects[ObjectIDKey(objectID)] }
    }

    var count: Int { objects.count }
    var values: Dictionary<ObjectIDKey, NSManagedObject>.Values { objects.values }
    var objectIDs: [NSManagedObjectID] { objects.keys.map(\.objectID) }

    mutating func reserveCapacity(_ minimumCapacity: Int) { objects.reserveCapacity(minimumCapacity) }
    mutating func removeAll() { objects.removeAll() }

    @discardableResult
    mutating func removeValue(forKey objectID: NSManagedObjectID) -> NSManagedObject? {
        objects.removeValue(forKey: ObjectIDKey(objectID))
    }

    /// Unregisters the objects among `candidates` (every object when nil) that are unchanged and referenced by the
    /// registry alone — freeing them — and returns their IDs.
    mutating func removeReleasable(among candidates: [NSManagedObjectID]?) -> [NSManagedObjectID] {
        var released: [NSManagedObjectID] = []
        if let candidates {
            for objectID in candidates {
                guard let index = objects.index(forKey: ObjectIDKey(objectID)), Self.isReleasable(&objects.values[index]) else { continue }
                objects.remove(at: index)
                released.append(objectID)
            }
        } else {
            var index = objects.startIndex
            while index != objects.endIndex {
                if Self.isReleasable(&objects.values[index]) { released.append(objects.keys[index].objectID) }
                objects.formIndex(after: &index)
            }
            for objectID in released { objects[ObjectIDKey(objectID)] = nil }
        }
        return released
    }

    /// Empties the registry for a context's `reset()`. Returns every ID that was registered, and the objects to
    /// turn into faults: those someone else still holds (every object with `everyObject`, for a context that
    /// retains its objects). Unchanged objects held by nobody else are freed here without turning into faults, as
    /// Apple's contexts, which hold unchanged objects weakly, would have freed them already; a second pass catches
    /// the objects that only the first pass's objects held (the members of a freed object's relationships).
    mutating func removeAllForReset(everyObject: Bool) -> (objectIDs: [NSManagedObjectID], held: [NSManagedObject]) {
        var objectIDs: [NSManagedObjectID] = []
        objectIDs.reserveCapacity(objects.count)
        var remaining: [NSManagedObject?] = []
        remaining.reserveCapacity(objects.count)
        for (key, object) in objects {
            objectIDs.append(key.objectID)
            remaining.append(object)
        }
        objects.removeAll()
        if !everyObject {
            for _ in 0..<2 {
                for index in remaining.indices where remaining[index]?.hasChanges == false && isKnownUniquelyReferenced(&remaining[index]) {
                    remaining[index] = nil
                }
            }
        }
        return (objectIDs, remaining.compactMap { $0 })
    }

    /// Whether a registered object can leave the registry: unchanged, and no reference but the registry's.
    private static func isReleasable(_ object: inout NSManagedObject) -> Bool {
        !object.hasChanges && isKnownUniquelyReferenced(&object)
    }
}
