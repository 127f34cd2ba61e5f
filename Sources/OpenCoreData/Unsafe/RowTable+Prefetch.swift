import CMemoryHints

/// Unsafe fast path "row-cache prefetch" (see ``UnsafeFastPaths``): reads a row-cache slot as raw memory.
///
/// The layout assumption: a `RowCache.Entry` holds its object ID and its attribute array as one reference each, at
/// `Entry.objectIDOffset` and `Entry.attributesOffset` (Swift computes the offsets; that a reference is one word is
/// what is assumed), and an empty slot (nil) has a null word at the ID's offset. Checked by
/// `PagedIDTableTests.theRawAddressesOfARowAreItsIDAndItsValues`.
extension PagedIDTable where Value == RowCache.Entry {
    /// Asks the processor for the ID and the attribute values of the row of `primaryKey`, if cached, ahead of its
    /// look-up: a fetch that reads a table in key order hands out each cached row's ID and values, which were made
    /// long before and have left the caches (each retain of one waited for memory). Reads the slot as raw memory, so
    /// that nothing is retained (a retain would wait for the very miss this hides). An unsafe fast path: off (no
    /// raw read, no hint) when ``UnsafeFastPaths/isEnabled`` is false. Returns whether it asked for the row.
    @discardableResult
    mutating func prefetch(store: String, primaryKey: Int64) -> Bool {
        guard UnsafeFastPaths.isEnabled, let (objectID, values) = referencedAddresses(store: store, primaryKey: primaryKey) else { return false }
        ocd_prefetch(objectID)
        // The array's header and its first values (a value is 24 bytes: six fill the first three lines).
        ocd_prefetch(values)
        ocd_prefetch(values + 64)
        ocd_prefetch(values + 128)
        return true
    }

    /// The addresses of the ID and of the attribute values' array storage of the cached row of `primaryKey`, read
    /// from its slot as raw memory; nil when the row is not cached. Mutating only so that it works on the table in
    /// place (a copy of the table retains its pages).
    mutating func referencedAddresses(store: String, primaryKey: Int64) -> (objectID: UnsafeRawPointer, values: UnsafeRawPointer)? {
        guard store == pagedStore, let position = Pages.position(of: primaryKey) else { return nil }
        var addresses: (UnsafeRawPointer, UnsafeRawPointer)?
        primaryKeyPages.withSlotAddress(at: position) { slot in
            // An empty slot (nil) has a null reference where an entry keeps its ID.
            guard let objectID = UnsafeRawPointer(bitPattern: slot.load(fromByteOffset: RowCache.Entry.objectIDOffset, as: UInt.self)),
                  let values = UnsafeRawPointer(bitPattern: slot.load(fromByteOffset: RowCache.Entry.attributesOffset, as: UInt.self))
            else { return }
            addresses = (objectID, values)
        }
        return addresses
    }
}
