/// The in-memory store's rows, fingerprinted: every row's ID, version and to-many members, combined in an
/// order-independent way.
extension InMemoryStore: MemoryResidentStore {
    func contentFingerprint() -> String {
        var sum: UInt64 = 0, mix: UInt64 = 0
        for row in rows.values {
            var hasher = Hasher()
            hasher.combine(row.objectID)
            hasher.combine(row.snapshot.version)
            for slot in row.toMany.keys.sorted() { hasher.combine(slot); hasher.combine(row.toMany[slot]) }
            let value = UInt64(bitPattern: Int64(hasher.finalize()))
            sum &+= value
            mix ^= value &* 0x9E37_79B9_7F4A_7C15
        }
        return "\(rows.count)-\(sum)-\(mix)"
    }
}
