/// A context's registered objects by object ID, held strongly: per inheritance hierarchy, a ``PagedIDTable``
/// (objects of one store's primary-key IDs found by indexing, others by `ObjectIDKey`, without `NSObject`'s dynamic
/// hashing and `Any`-boxing equality). Unchanged objects nobody else holds are let go by `removeReleasable`.
struct ObjectRegistry {
    /// The tables of the hierarchies other than `currentHierarchy`.
    private var tables: [ObjectIdentifier: PagedIDTable<NSManagedObject>] = [:]
    /// The hierarchy whose table was changed last; its table is `current`, kept out of `tables`: changing a table in
    /// place through the dictionary's subscript wrote the whole table back after every change (about 800
    /// instructions per registered, moved or released object), and most changes in a row are to one hierarchy.
    private var currentHierarchy: ObjectIdentifier?
    private var current = PagedIDTable<NSManagedObject>()

    /// The object registered under `objectID`; setting nil unregisters it.
    subscript(objectID: NSManagedObjectID) -> NSManagedObject? {
        get {
            let hierarchy = objectID.rootEntityIdentity
            return hierarchy == currentHierarchy ? current[objectID] : tables[hierarchy]?[objectID]
        }
        set { withSlot(for: objectID) { $0 = newValue } }
    }

    /// Runs `body` on the registry slot of `objectID` (nil when no object is registered under it; an object put in
    /// it is registered). See ``PagedIDTable/withSlot(for:_:)``.
    mutating func withSlot<R>(for objectID: NSManagedObjectID, _ body: (inout NSManagedObject?) -> R) -> R {
        makeCurrent(objectID.rootEntityIdentity)
        return current.withSlot(for: objectID, body)
    }

    /// The number of registered objects (a table per hierarchy: a few to sum).
    var count: Int { tables.values.reduce(current.count) { $0 + $1.count } }

    /// Every registered object, in no particular order.
    var values: [NSManagedObject] {
        var result: [NSManagedObject] = []
        result.reserveCapacity(count)
        current.forEach { result.append($0) }
        for table in tables.values { table.forEach { result.append($0) } }
        return result
    }

    mutating func removeAll() {
        tables.removeAll()
        current = PagedIDTable()
        currentHierarchy = nil
    }

    @discardableResult
    mutating func removeValue(forKey objectID: NSManagedObjectID) -> NSManagedObject? {
        guard makeCurrentIfHeld(objectID.rootEntityIdentity) else { return nil }
        return current.removeValue(for: objectID)
    }

    /// Makes `hierarchy`'s table the current one if the registry has one; false if it has none.
    private mutating func makeCurrentIfHeld(_ hierarchy: ObjectIdentifier) -> Bool {
        guard hierarchy == currentHierarchy || tables.index(forKey: hierarchy) != nil else { return false }
        makeCurrent(hierarchy)
        return true
    }

    /// Makes `hierarchy`'s table the current one (moving the current one back into `tables`).
    private mutating func makeCurrent(_ hierarchy: ObjectIdentifier) {
        guard hierarchy != currentHierarchy else { return }
        parkCurrent()
        current = tables.removeValue(forKey: hierarchy) ?? PagedIDTable()
        currentHierarchy = hierarchy
    }

    /// Moves the current table back into `tables` (for the passes over every table).
    private mutating func parkCurrent() {
        guard let hierarchy = currentHierarchy else { return }
        if current.count > 0 { tables[hierarchy] = current }
        current = PagedIDTable()
        currentHierarchy = nil
    }

    /// Unregisters the objects among `candidates` (every object when nil) that are unchanged and referenced by the
    /// registry alone — freeing them — and returns their IDs.
    mutating func removeReleasable(among candidates: [NSManagedObjectID]?) -> [NSManagedObjectID] {
        var released: [NSManagedObjectID] = []
        if let candidates {
            for objectID in candidates {
                guard makeCurrentIfHeld(objectID.rootEntityIdentity),
                      current.withEntry(for: objectID, { Self.isReleasable(&$0) ? true : nil }) == true else { continue }
                current.removeValue(for: objectID)
                released.append(objectID)
            }
        } else {
            parkCurrent()
            for hierarchy in Array(tables.keys) {
                tables[hierarchy]!.removeAll { object in
                    guard Self.isReleasable(&object) else { return false }
                    released.append(object._objectID)
                    return true
                }
            }
        }
        return released
    }

    /// Empties the registry for a context's `reset()`. Returns every ID that was registered, and the objects to
    /// turn into faults: those someone else still holds (every object with `everyObject`, for a context that
    /// retains its objects). Unchanged objects held by nobody else are freed here without turning into faults, as
    /// Apple's contexts, which hold unchanged objects weakly, would have freed them already; a second pass catches
    /// the objects that only the first pass's objects held (the members of a freed object's relationships).
    mutating func removeAllForReset(everyObject: Bool) -> (objectIDs: [NSManagedObjectID], held: [NSManagedObject]) {
        parkCurrent()
        var objectIDs: [NSManagedObjectID] = []
        objectIDs.reserveCapacity(count)
        for table in tables.values { table.forEach { objectIDs.append($0._objectID) } }
        if !everyObject {
            // In place: moving every object to a list first cost a retain and a release per object.
            for _ in 0..<2 {
                for hierarchy in Array(tables.keys) { tables[hierarchy]!.removeAll(where: Self.isReleasable) }
            }
        }
        let held = values
        removeAll()
        return (objectIDs, held)
    }

    /// Whether a registered object can leave the registry: unchanged, and no reference but the registry's.
    private static func isReleasable(_ object: inout NSManagedObject) -> Bool {
        !object.hasChanges && isKnownUniquelyReferenced(&object)
    }
}
