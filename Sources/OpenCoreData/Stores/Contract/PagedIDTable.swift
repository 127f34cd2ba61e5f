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
/// table.withSlot(for: objectID) { slot in if slot == nil { slot = entry } }
/// ```
///
/// Temporary IDs are paged too, by the counter in their UUID (``TemporaryIDSource``): a context registers each object
/// it inserts under one, and moves it to its permanent ID when it is saved. Their pages start at the first counter
/// held and are dropped when the last temporary ID leaves (a save empties them). A temporary ID's slot is checked
/// for an equal ID, as an ID read from a URI may name a counter of another entity or process: another ID is kept by ID.
///
/// Memory: a dense run of values costs what the hash table did or less (a row-cache entry is 48 bytes; the
/// table's key, value and load factor made about 85); a page holds 32 values, so a value alone in its page costs
/// 32 slots (1.5 KB for a row-cache entry: a fetch of scattered rows of a large table), and `pages` grows by 8 bytes
/// per 32 primary keys up to the highest one held. Keys from 4,194,304 on are kept by ID (`pages` stays under 1 MB).
struct PagedIDTable<Value: IdentifiedByObjectID> {
    /// The store whose primary-key values are paged: the first one a value was set for.
    var pagedStore: String?   // read by the unsafe prefetch (Unsafe/RowTable+Prefetch.swift)
    /// Values of `pagedStore`'s primary-key IDs, by primary key.
    var primaryKeyPages = Pages()
    /// Values of temporary IDs, by their counter minus `temporaryBase`.
    private var temporaryPages = Pages()
    /// The first counter of `temporaryPages` (a page boundary), chosen again whenever they are empty.
    private var temporaryBase: UInt64?
    private var others: [ObjectIDKey: Value] = [:]

    /// The number of values held.
    var count: Int { primaryKeyPages.count + temporaryPages.count + others.count }

    /// Where a value is paged: by primary key, or by temporary counter (then the slot may hold another ID's value).
    fileprivate enum Place {
        case primaryKey(Pages.Position)
        case temporary(Pages.Position)
        case other
    }

    private func place(of objectID: NSManagedObjectID) -> Place {
        switch objectID.key {
        case .primaryKey(let key):
            guard let pagedStore, objectID.storeIdentifier == pagedStore, let position = Pages.position(of: key) else { return .other }
            return .primaryKey(position)
        case .temporary:
            guard let base = temporaryBase, let position = Pages.position(of: objectID.temporaryCounter &- base) else { return .other }
            return .temporary(position)
        case .reference:
            return .other
        }
    }

    /// The value of `objectID`; setting it records or forgets the value.
    subscript(objectID: NSManagedObjectID) -> Value? {
        get {
            switch place(of: objectID) {
            case .primaryKey(let position):
                return primaryKeyPages[position]
            case .temporary(let position) where temporaryPages.holds(objectID, at: position):
                return temporaryPages[position]
            case .temporary, .other:
                return others[ObjectIDKey(objectID)]
            }
        }
        set { withSlot(for: objectID) { $0 = newValue } }
    }

    /// Runs `body` on the slot of `objectID` (nil when it holds no value; a value put in it is recorded, nil forgets
    /// it). A closure rather than a `_modify` accessor: the three nested accessors' coroutine frames were allocated
    /// on the heap, a `malloc` and a `free` for every registered object and every row recorded.
    mutating func withSlot<R>(for objectID: NSManagedObjectID, _ body: (inout Value?) -> R) -> R {
        switch objectID.key {
        case .primaryKey: if pagedStore == nil { pagedStore = objectID.storeIdentifier }
        case .temporary: if temporaryPages.count == 0 { temporaryBase = objectID.temporaryCounter & ~UInt64(Pages.pageSize - 1) }
        case .reference: break
        }
        switch place(of: objectID) {
        case .primaryKey(let position):
            return primaryKeyPages.withSlot(at: position, body)
        case .temporary(let position) where temporaryPages.holds(objectID, at: position):
            defer { dropTemporaryPagesIfEmpty() }
            return temporaryPages.withSlot(at: position, body)
        case .temporary, .other:
            return body(&others[ObjectIDKey(objectID)])
        }
    }

    /// Runs `body` on the value of `objectID` in place (reading it out would retain what it holds); nil without one.
    mutating func withEntry<R>(for objectID: NSManagedObjectID, _ body: (inout Value) -> R?) -> R? {
        switch place(of: objectID) {
        case .primaryKey(let position):
            return primaryKeyPages.withValue(at: position, body)
        case .temporary(let position) where temporaryPages.holds(objectID, at: position):
            return temporaryPages.withValue(at: position, body)
        case .temporary, .other:
            guard let index = others.index(forKey: ObjectIDKey(objectID)) else { return nil }
            return body(&others.values[index])
        }
    }

    /// ``withEntry(for:_:)`` for a value known by its store and primary key (no ID is made to look it up); nil when
    /// that store's values are not the paged ones.
    mutating func withEntry<R>(store: String, primaryKey: Int64, _ body: (inout Value) -> R?) -> R? {
        guard store == pagedStore, let position = Pages.position(of: primaryKey) else { return nil }
        return primaryKeyPages.withValue(at: position, body)
    }

    /// Whether the values of `store` with `primaryKey` are paged: then one not found by
    /// ``withEntry(store:primaryKey:_:)`` is not in the table.
    func isPaged(store: String, primaryKey: Int64) -> Bool {
        store == pagedStore && Pages.position(of: primaryKey) != nil
    }

    /// Removes the value of `objectID` and returns it.
    @discardableResult
    mutating func removeValue(for objectID: NSManagedObjectID) -> Value? {
        switch place(of: objectID) {
        case .primaryKey(let position):
            return primaryKeyPages.removeValue(at: position)
        case .temporary(let position) where temporaryPages.holds(objectID, at: position):
            defer { dropTemporaryPagesIfEmpty() }
            return temporaryPages.removeValue(at: position)
        case .temporary, .other:
            return others.removeValue(forKey: ObjectIDKey(objectID))
        }
    }

    /// Frees the temporary pages once no temporary ID is left (a save moves every one to its permanent ID).
    private mutating func dropTemporaryPagesIfEmpty() {
        if temporaryPages.count == 0 { (temporaryPages, temporaryBase) = (Pages(), nil) }
    }

    /// Removes every value.
    mutating func removeAll() {
        primaryKeyPages = Pages()
        temporaryPages = Pages()
        temporaryBase = nil
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
        primaryKeyPages.forEach(body)
        temporaryPages.forEach(body)
    }

    /// Removes the values `shouldRemove` accepts, each seen in place (so that `isKnownUniquelyReferenced` sees the
    /// table's own reference): a value the table alone held is freed where it is.
    mutating func removeAll(where shouldRemove: (inout Value) -> Bool) {
        var removedOthers: [ObjectIDKey] = []
        // Indices by hand: `others.indices` would hold the dictionary's storage, and the in-place access would copy it.
        var index = others.startIndex
        while index != others.endIndex {
            if shouldRemove(&others.values[index]) { removedOthers.append(others.keys[index]) }
            others.formIndex(after: &index)
        }
        for key in removedOthers { others.removeValue(forKey: key) }
        primaryKeyPages.removeAll(where: shouldRemove)
        temporaryPages.removeAll(where: shouldRemove)
        dropTemporaryPagesIfEmpty()
    }

    /// The number of values `isIncluded` accepts.
    func count(where isIncluded: (Value) -> Bool) -> Int {
        var total = 0
        forEach { if isIncluded($0) { total += 1 } }
        return total
    }

    /// Whether every value satisfies `predicate`.
    func allSatisfy(_ predicate: (Value) -> Bool) -> Bool {
        count { !predicate($0) } == 0
    }

    /// Values in pages of `pageSize` slots by a small non-negative integer; a page no value was set in is empty.
    struct Pages {
        static var pageBits: Int { 5 }
        static var pageSize: Int { 1 << pageBits }
        /// Integers from this one on are not paged (so that huge keys do not grow `pages`).
        static var limit: Int64 { 1 << 22 }

        struct Position {
            let page: Int
            let slot: Int
        }

        private var pages: [ContiguousArray<Value?>] = []
        private(set) var count = 0

        static func position(of key: Int64) -> Position? {
            guard key >= 0, key < limit else { return nil }
            return Position(page: Int(key) >> pageBits, slot: Int(key) & (pageSize - 1))
        }

        static func position(of counter: UInt64) -> Position? {
            counter < UInt64(limit) ? position(of: Int64(counter)) : nil
        }

        subscript(position: Position) -> Value? {
            position.page < pages.count && !pages[position.page].isEmpty ? pages[position.page][position.slot] : nil
        }

        /// Runs `body` on the slot at `position`, made if needed; the count follows what is stored in it.
        mutating func withSlot<R>(at position: Position, _ body: (inout Value?) -> R) -> R {
            if position.page >= pages.count { pages.append(contentsOf: repeatElement([], count: position.page + 1 - pages.count)) }
            if pages[position.page].isEmpty { pages[position.page] = ContiguousArray(repeating: nil, count: Self.pageSize) }
            let had = pages[position.page][position.slot] != nil
            let result = body(&pages[position.page][position.slot])
            count += (pages[position.page][position.slot] != nil ? 1 : 0) - (had ? 1 : 0)
            return result
        }

        /// Whether the slot at `position` is free or holds the value of an ID equal to `objectID`.
        func holds(_ objectID: NSManagedObjectID, at position: Pages.Position) -> Bool {
            guard let value = self[position] else { return true }
            return value.tableObjectID.isSame(as: objectID)
        }

        mutating func withValue<R>(at position: Position, _ body: (inout Value) -> R?) -> R? {
            guard position.page < pages.count, !pages[position.page].isEmpty, pages[position.page][position.slot] != nil else { return nil }
            return body(&pages[position.page][position.slot]!)
        }

        /// Runs `body` on the address of the slot at `position` (nil when its page is not made), read as raw
        /// memory: nothing it holds is retained.
        mutating func withSlotAddress(at position: Position, _ body: (UnsafeRawPointer) -> Void) {
            guard position.page < pages.count, !pages[position.page].isEmpty else { return }
            pages[position.page].withUnsafeMutableBufferPointer { slots in
                body(UnsafeRawPointer(slots.baseAddress! + position.slot))
            }
        }

        mutating func removeValue(at position: Position) -> Value? {
            guard position.page < pages.count, !pages[position.page].isEmpty, pages[position.page][position.slot] != nil else { return nil }
            count -= 1
            return pages[position.page][position.slot].take()
        }

        func forEach(_ body: (Value) -> Void) {
            for page in pages { for case let value? in page { body(value) } }
        }

        mutating func removeAll(where shouldRemove: (inout Value) -> Bool) {
            for page in pages.indices where !pages[page].isEmpty {
                for slot in 0..<Self.pageSize where pages[page][slot] != nil && shouldRemove(&pages[page][slot]!) {
                    pages[page][slot] = nil
                    count -= 1
                }
            }
        }
    }
}

extension PagedIDTable: Sendable where Value: Sendable {}
extension PagedIDTable.Pages: Sendable where Value: Sendable {}
extension PagedIDTable.Pages.Position: Sendable {}

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
