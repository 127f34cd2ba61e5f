/// The cached rows of one inheritance hierarchy (``RowCache``): the rows of one store's primary-key IDs in pages
/// indexed by primary key, every other row by its ID.
///
/// Core Data's primary keys are small dense integers (`Z_PK`, handed out from `Z_PRIMARYKEY.Z_MAX`), so a row is
/// found by indexing. A hash table's look-up touched its bitmap, its key and value arrays and the key's ID, each
/// a cache miss in a table of 100,000 rows. IDs of one hierarchy with equal keys are equal IDs (a super-entity's
/// ID finds a sub-entity's row), so the primary key alone identifies a row of the paged store.
///
/// ```swift
/// var table = RowTable()
/// table[objectID] = entry            // recorded
/// table.withEntry(for: objectID) { $0.fetched = now }
/// ```
///
/// Memory: a dense run of rows costs what the hash table did or less (an entry is 64 bytes; the table's key,
/// value and load factor made about 85); a page holds 32 rows, so a row cached alone in its page costs 2 KB (a
/// fetch of scattered rows of a large table), and `pages` grows by 8 bytes per 32 primary keys up to the
/// highest cached one. Keys from 4,194,304 on are kept by ID (`pages` stays under 1 MB).
struct RowTable {
    private static let pageBits = 5
    private static let pageSize = 1 << pageBits
    /// Primary keys from this one on are kept by ID (so that a store with huge keys does not grow `pages`).
    private static let pagedKeyLimit: Int64 = 1 << 22

    /// The store whose primary-key rows are paged: the first one a row was recorded for.
    private var pagedStore: String?
    /// Pages of `pageSize` rows by `primaryKey >> pageBits`; a page no row was recorded in is empty.
    private var pages: [ContiguousArray<RowCache.Entry?>] = []
    private var pagedCount = 0
    private var others: [ObjectIDKey: RowCache.Entry] = [:]

    /// The number of rows held.
    var count: Int { pagedCount + others.count }

    /// Where the row of `objectID` is paged, if it is.
    private func pagedPosition(of objectID: NSManagedObjectID) -> (page: Int, slot: Int)? {
        guard case .primaryKey(let key) = objectID.key, let pagedStore, objectID.storeIdentifier == pagedStore else { return nil }
        return Self.position(of: key)
    }

    private static func position(of key: Int64) -> (page: Int, slot: Int)? {
        guard key >= 0, key < pagedKeyLimit else { return nil }
        return (Int(key) >> pageBits, Int(key) & (pageSize - 1))
    }

    /// The row of `objectID`; setting it records or forgets the row.
    subscript(objectID: NSManagedObjectID) -> RowCache.Entry? {
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

    /// Runs `body` on the row of `objectID` in place (reading it out would retain its arrays); nil without a row.
    mutating func withEntry<R>(for objectID: NSManagedObjectID, _ body: (inout RowCache.Entry) -> R?) -> R? {
        if let (page, slot) = pagedPosition(of: objectID) {
            guard page < pages.count, !pages[page].isEmpty, pages[page][slot] != nil else { return nil }
            return body(&pages[page][slot]!)
        }
        guard let index = others.index(forKey: ObjectIDKey(objectID)) else { return nil }
        return body(&others.values[index])
    }

    /// ``withEntry(for:_:)`` for a row known by its store and primary key (no ID is made to look it up); nil when
    /// that store's rows are not the paged ones.
    mutating func withEntry<R>(store: String, primaryKey: Int64, _ body: (inout RowCache.Entry) -> R?) -> R? {
        guard store == pagedStore, let (page, slot) = Self.position(of: primaryKey), page < pages.count, !pages[page].isEmpty,
              pages[page][slot] != nil
        else { return nil }
        return body(&pages[page][slot]!)
    }

    /// Whether the rows of `store` with `primaryKey` are paged: then a row not found by ``withEntry(store:primaryKey:_:)``
    /// is not cached.
    func pages(store: String, primaryKey: Int64) -> Bool {
        store == pagedStore && Self.position(of: primaryKey) != nil
    }

    /// Forgets the row of `objectID`.
    mutating func removeValue(for objectID: NSManagedObjectID) {
        if let (page, slot) = pagedPosition(of: objectID) {
            guard page < pages.count, !pages[page].isEmpty, pages[page][slot] != nil else { return }
            pages[page][slot] = nil
            pagedCount -= 1
        } else {
            others.removeValue(forKey: ObjectIDKey(objectID))
        }
    }

    /// The number of rows `isIncluded` accepts.
    func count(where isIncluded: (RowCache.Entry) -> Bool) -> Int {
        var total = others.values.filter(isIncluded).count
        for page in pages { for case let entry? in page where isIncluded(entry) { total += 1 } }
        return total
    }

    /// Whether every row satisfies `predicate`.
    func allSatisfy(_ predicate: (RowCache.Entry) -> Bool) -> Bool {
        count { !predicate($0) } == 0
    }
}
