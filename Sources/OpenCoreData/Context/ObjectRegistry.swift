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

    /// Whether a registered object can leave the registry: unchanged, and no reference but the registry's.
    private static func isReleasable(_ object: inout NSManagedObject) -> Bool {
        !object.hasChanges && isKnownUniquelyReferenced(&object)
    }
}
