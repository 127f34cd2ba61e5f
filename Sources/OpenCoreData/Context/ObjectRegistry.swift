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

    /// For a context's `reset()`: every registered ID, and the objects that must be turned into faults — those
    /// someone else still holds (every object with `everyObject`, for a context that retains its objects). An
    /// unchanged object held by the registry alone is left out: it is freed when the registry is emptied, as
    /// Apple's contexts, which hold unchanged objects weakly, would have freed it already.
    mutating func objectsToInvalidate(everyObject: Bool) -> (objectIDs: [NSManagedObjectID], held: [NSManagedObject]) {
        var objectIDs: [NSManagedObjectID] = []
        objectIDs.reserveCapacity(objects.count)
        var held: [NSManagedObject] = []
        var index = objects.startIndex
        while index != objects.endIndex {
            objectIDs.append(objects.keys[index].objectID)
            if everyObject || !Self.isReleasable(&objects.values[index]) { held.append(objects.values[index]) }
            objects.formIndex(after: &index)
        }
        return (objectIDs, held)
    }

    /// Whether a registered object can leave the registry: unchanged, and no reference but the registry's.
    private static func isReleasable(_ object: inout NSManagedObject) -> Bool {
        !object.hasChanges && isKnownUniquelyReferenced(&object)
    }
}
