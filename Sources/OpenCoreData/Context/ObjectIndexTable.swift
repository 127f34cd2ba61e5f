/// Positions by object identity: an open-addressing hash table keyed by the object's address, for
/// ``OrderedObjectSet`` (a context's inserted, updated and deleted objects, and each event's changes).
///
/// A `Dictionary<ObjectIdentifier, Int>` hashed every key with SipHash (Swift's `Hasher`, about 150 instructions)
/// and paid a generic look-up around it: an insert into an ordered set cost about 500 instructions, and deleting an
/// object inserts it into three sets. Here an address is mixed with one multiplication (Fibonacci hashing: the
/// high bits of `address × 2⁶⁴/φ`), probed linearly, and a removal shifts the following entries back instead of
/// leaving a marker. The table holds at most half its slots, so probes stay short.
///
/// ```swift
/// var table = ObjectIndexTable()
/// table.insert(ObjectIdentifier(object), 0)   // true: new
/// table[ObjectIdentifier(object)]             // 0
/// table.removeValue(for: ObjectIdentifier(object))
/// ```
struct ObjectIndexTable {
    /// A slot: the key's address (0: empty; no object lives at address 0) and its value.
    private struct Slot {
        var key: UInt
        var value: Int
    }

    private var slots: [Slot] = []
    /// `slots.count` is `1 << bits` (0 before the first insert).
    private var bits = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    init() {}

    /// An empty table that holds `minimumCapacity` entries without growing.
    init(minimumCapacity: Int) {
        while (1 << bits) < minimumCapacity * 2 { bits += 1 }
        if minimumCapacity > 0 { bits = Swift.max(bits, 4) }
        slots = Array(repeating: Slot(key: 0, value: 0), count: bits == 0 ? 0 : 1 << bits)
    }

    /// The value of `key`, or nil.
    subscript(key: ObjectIdentifier) -> Int? {
        guard count > 0 else { return nil }
        let address = Self.address(key)
        var index = home(of: address)
        while true {
            let slot = slots[index]
            if slot.key == address { return slot.value }
            if slot.key == 0 { return nil }
            index = (index + 1) & (slots.count - 1)
        }
    }

    /// Adds `key` with `value` unless it is present; returns whether it was added.
    @discardableResult
    mutating func insert(_ key: ObjectIdentifier, _ value: Int) -> Bool {
        if (count + 1) * 2 > slots.count { grow() }
        let address = Self.address(key)
        var index = home(of: address)
        while slots[index].key != 0 {
            if slots[index].key == address { return false }
            index = (index + 1) & (slots.count - 1)
        }
        slots[index] = Slot(key: address, value: value)
        count += 1
        return true
    }

    /// Removes `key`; returns its value, or nil if it was absent.
    @discardableResult
    mutating func removeValue(for key: ObjectIdentifier) -> Int? {
        guard count > 0 else { return nil }
        let mask = slots.count - 1
        let address = Self.address(key)
        var index = home(of: address)
        while slots[index].key != address {
            if slots[index].key == 0 { return nil }
            index = (index + 1) & mask
        }
        let value = slots[index].value
        // Backward-shift deletion: each following entry of the run moves into the hole unless its home lies
        // cyclically after the hole (then it would no longer be found from its home).
        var hole = index
        var next = (hole + 1) & mask
        while slots[next].key != 0 {
            let home = home(of: slots[next].key)
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot(key: 0, value: 0)
        count -= 1
        return value
    }

    mutating func removeAll() {
        slots = []
        bits = 0
        count = 0
    }

    private static func address(_ key: ObjectIdentifier) -> UInt { UInt(bitPattern: Int(bitPattern: key)) }

    /// The slot a key's probe starts at: the top `bits` bits of the address times 2⁶⁴/φ.
    private func home(of address: UInt) -> Int { Self.home(of: address, bits: bits) }

    private static func home(of address: UInt, bits: Int) -> Int {
        Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> UInt(UInt.bitWidth - bits))
    }

    /// Doubles the slots (16 at first) and inserts every entry again.
    private mutating func grow() {
        let old = slots
        bits = Swift.max(4, bits + 1)
        // One pass over the new buffer without per-slot bounds and uniqueness checks (growing to 100,000 entries
        // inserts about 200,000 again).
        let (bits, size) = (bits, 1 << bits)
        slots = Array(unsafeUninitializedCapacity: size) { buffer, initialized in
            let mask = size - 1
            buffer.baseAddress!.initialize(repeating: Slot(key: 0, value: 0), count: size)
            for slot in old where slot.key != 0 {
                var index = Self.home(of: slot.key, bits: bits)
                while buffer[index].key != 0 { index = (index + 1) & mask }
                buffer[index] = slot
            }
            initialized = size
        }
    }
}
