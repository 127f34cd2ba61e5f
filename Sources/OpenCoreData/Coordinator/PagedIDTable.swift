/// A table by object ID that keeps the values of one store's primary-key IDs in pages indexed by primary key and
/// every other value by its ID: the row cache's rows of one inheritance hierarchy (``RowTable``) and a context's
/// registered objects (``ObjectRegistry``).
///
/// Core Data's primary keys are small dense integers (`Z_PK`, handed out from `Z_PRIMARYKEY.Z_MAX`), so a value is
/// found by indexing. A hash table's look-up touched its bitmap, its key and value arrays and the key's ID, each
/// a cache miss in a table of 100,000 entries. A table holds the IDs of one inheritance hierarchy: there, IDs with
/// equal keys are equal IDs (a super-entity's ID finds a sub-entity's value), so the primary key alone identifies
/// a value of the paged store.
///
/// ```swift
/// var table = RowTable()
/// table[objectID] = entry            // recorded
/// table.withEntry(for: objectID) { $0.fetched = now }
/// ```
///
/// Memory: a dense run of values costs what the hash table did or less (a row-cache entry is 64 bytes; the
/// table's key, value and load factor made about 85); a page holds 32 values, so a value alone in its page costs
/// 32 slots (2 KB for a row-cache entry: a fetch of scattered rows of a large table), and `pages` grows by 8 bytes
/// per 32 primary keys up to the highest one held. Keys from 4,194,304 on are kept by ID (`pages` stays under 1 MB).
struct PagedIDTable<Value: IdentifiedByObjectID> {
    private static var pageBits: Int { 5 }
    private static var pageSize: Int { 1 << pageBits }
    /// Primary keys from this one on are kept by ID (so that a store with huge keys does not grow `pages`).
    private static var pagedKeyLimit: Int64 { 1 << 22 }

    /// The store whose primary-key values are paged: the first one a value was set for.
    private var pagedStore: String?
    /// Pages of `pageSize` values by `primaryKey >> pageBits`; a page no value was set in is empty.
    private var pages: [ContiguousArray<Value?>] = []
    private var pagedCount = 0
    private var others: [ObjectIDKey: Value] = [:]

    /// The number of values held.
    var count: Int { pagedCount + others.count }

    /// Where the value of `objectID` is paged, if it is.
    private func pagedPosition(of objectID: NSManagedObjectID) -> (page: Int, slot: Int)? {
        guard case .primaryKey(let key) = objectID.key, let pagedStore, objectID.storeIdentifier == pagedStore else { return nil }
        return Self.position(of: key)
    }

    private static func position(of key: Int64) -> (page: Int, slot: Int)? {
        guard key >= 0, key < pagedKeyLimit else { return nil }
        return (Int(key) >> pageBits, Int(key) & (pageSize - 1))
    }

    /// The value of `objectID`; setting it records or forgets the value.
    subscript(objectID: NSManagedObjectID) -> Value? {
        get {
            if let (page, slot) = pagedPosition(of: objectID) { return page < pages.count && !pages[page].isEmpty ? pages[page][slot] : nil }
            return others[ObjectIDKey(objectID)]
        }
        _modify {
            if pagedStore == nil, case .primaryKey = objectID.key { pagedStore = objectID.storeIdentifier }
            if let (page, slot) = pagedPosition(of: objectID) {
                if page >= pages.count { pages.append(contentsOf: repeatElement([], count: page + 1 - pages.count)) }
                if pages[page].isEmpty { pages[page] = ContiguousArray(repeating: nil, count: Self.pageSize) }
                let had = pages[page][slot] != nil
                yield &pages[page][slot]
                pagedCount += (pages[page][slot] != nil ? 1 : 0) - (had ? 1 : 0)
            } else {
                yield &others[ObjectIDKey(objectID)]
            }
        }
    }

    /// Runs `body` on the value of `objectID` in place (reading it out would retain what it holds); nil without one.
    mutating func withEntry<R>(for objectID: NSManagedObjectID, _ body: (inout Value) -> R?) -> R? {
        if let (page, slot) = pagedPosition(of: objectID) {
            guard page < pages.count, !pages[page].isEmpty, pages[page][slot] != nil else { return nil }
            return body(&pages[page][slot]!)
        }
        guard let index = others.index(forKey: ObjectIDKey(objectID)) else { return nil }
        return body(&others.values[index])
    }

    /// ``withEntry(for:_:)`` for a value known by its store and primary key (no ID is made to look it up); nil when
    /// that store's values are not the paged ones.
    mutating func withEntry<R>(store: String, primaryKey: Int64, _ body: (inout Value) -> R?) -> R? {
        guard store == pagedStore, let (page, slot) = Self.position(of: primaryKey), page < pages.count, !pages[page].isEmpty,
              pages[page][slot] != nil
        else { return nil }
        return body(&pages[page][slot]!)
    }

    /// Whether the values of `store` with `primaryKey` are paged: then one not found by
    /// ``withEntry(store:primaryKey:_:)`` is not in the table.
    func isPaged(store: String, primaryKey: Int64) -> Bool {
        store == pagedStore && Self.position(of: primaryKey) != nil
    }

    /// Removes the value of `objectID` and returns it.
    @discardableResult
    mutating func removeValue(for objectID: NSManagedObjectID) -> Value? {
        if let (page, slot) = pagedPosition(of: objectID) {
            guard page < pages.count, !pages[page].isEmpty, pages[page][slot] != nil else { return nil }
            pagedCount -= 1
            return pages[page][slot].take()
        }
        return others.removeValue(forKey: ObjectIDKey(objectID))
    }

    /// Removes every value.
    mutating func removeAll() {
        pages = []
        pagedCount = 0
        others = [:]
    }

    /// Every value, in no particular order.
    var values: [Value] {
        var result: [Value] = []
        result.reserveCapacity(count)
        forEach { result.append($0) }
        return result
    }

    /// Calls `body` with every value, in no particular order.
    func forEach(_ body: (Value) -> Void) {
        for value in others.values { body(value) }
        for page in pages { for case let value? in page { body(value) } }
    }

    /// The IDs of the values `isIncluded` accepts, each value seen in place (so that `isKnownUniquelyReferenced`
    /// sees the table's own reference).
    mutating func objectIDs(where isIncluded: (inout Value) -> Bool) -> [NSManagedObjectID] {
        var result: [NSManagedObjectID] = []
        // Indices by hand: `others.indices` would hold the dictionary's storage, and the in-place access would copy it.
        var index = others.startIndex
        while index != others.endIndex {
            if isIncluded(&others.values[index]) { result.append(others.keys[index].objectID) }
            others.formIndex(after: &index)
        }
        for page in pages.indices where !pages[page].isEmpty {
            for slot in pages[page].indices where pages[page][slot] != nil && isIncluded(&pages[page][slot]!) {
                result.append(pages[page][slot]!.tableObjectID)
            }
        }
        return result
    }

    /// The number of values `isIncluded` accepts.
    func count(where isIncluded: (Value) -> Bool) -> Int {
        var total = others.values.filter(isIncluded).count
        for page in pages { for case let entry? in page where isIncluded(entry) { total += 1 } }
        return total
    }

    /// Whether every value satisfies `predicate`.
    func allSatisfy(_ predicate: (Value) -> Bool) -> Bool {
        count { !predicate($0) } == 0
    }
}

extension PagedIDTable: Sendable where Value: Sendable {}

/// A value a ``PagedIDTable`` holds: it knows the ID it is kept under.
protocol IdentifiedByObjectID {
    var tableObjectID: NSManagedObjectID { get }
}

/// The row cache's rows of one inheritance hierarchy.
typealias RowTable = PagedIDTable<RowCache.Entry>

extension RowCache.Entry: IdentifiedByObjectID {
    var tableObjectID: NSManagedObjectID { objectID }
}

extension NSManagedObject: IdentifiedByObjectID {
    var tableObjectID: NSManagedObjectID { _objectID }
}
