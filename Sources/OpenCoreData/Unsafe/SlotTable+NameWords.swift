/// Unsafe fast path "property-name bits" (see ``UnsafeFastPaths``): a property name is looked up by comparing the
/// key's two words with each name's before hashing it.
///
/// The layout assumption: a `String` is two words (checked: `MemoryLayout<String>.size == 16`, else the fast path is
/// off), and equal words are equal strings (the converse need not hold: a miss falls back to the hashed look-up).
/// Checked by `UnsafeFastPathsTests` (every workload reads properties by name both ways).
extension SlotTable {
    /// The two words of each name, or none when the fast path is off as the layout is made.
    static func nameWords(of names: [String]) -> [(UInt64, UInt64)] {
        guard MemoryLayout<String>.size == 16, UnsafeFastPaths.isEnabled else { return [] }
        return names.map { unsafeBitCast($0, to: (UInt64, UInt64).self) }
    }

    /// The position of the name whose words are `key`'s, if any.
    @inline(__always)
    func positionComparingWords(of key: String) -> Int? {
        let bits = unsafeBitCast(key, to: (UInt64, UInt64).self)
        for index in nameBits.indices where nameBits[index] == bits { return index }
        return nil
    }
}
