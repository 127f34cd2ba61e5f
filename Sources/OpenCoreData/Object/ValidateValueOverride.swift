/// Whether a managed object class overrides `validateValue(_:forKey:)`. When it does not, a save need not call it
/// for a property without rules (an optional attribute without validation predicates, an optional relationship
/// without count limits): the base implementation would accept any value there. That call, with the value boxed
/// in `Any` and compared afterwards for coercion, was 14 % of inserting and saving 100,000 objects.
///
/// Swift has no API to ask whether a method is overridden, so the answer is read from the classes' vtables: the
/// slot of `validateValue` is found once, as the one word of `NSManagedObject`'s class metadata that a subclass
/// overriding the method changes and a subclass that does not leaves alone (two private probe classes). A class
/// overrides the method exactly when its word there differs from `NSManagedObject`'s. If the probes do not single
/// out one word (a runtime whose metadata differs from the one this was written for), every class counts as
/// overriding, and every property is validated through `validateValue` as before.
///
/// ```swift
/// ValidateValueOverride.isOverridden(by: Mood.self)   // false unless Mood overrides validateValue(_:forKey:)
/// ```
enum ValidateValueOverride {
    /// The byte offset of `validateValue`'s vtable slot in class metadata; nil when it could not be found.
    static let slotOffset: Int? = findSlot()

    /// Whether `objectClass` (or a superclass below `NSManagedObject`) overrides `validateValue(_:forKey:)`.
    static func isOverridden(by objectClass: NSManagedObject.Type) -> Bool {
        guard let slotOffset else { return true }
        if objectClass == NSManagedObject.self { return false }
        return word(of: objectClass, at: slotOffset) != word(of: NSManagedObject.self, at: slotOffset)
    }

    private final class OverridingProbe: NSManagedObject {
        override func validateValue(_ value: inout Any?, forKey key: String) throws {
            try super.validateValue(&value, forKey: key)
        }
    }

    private final class PlainProbe: NSManagedObject {}

    private static func word(of objectClass: AnyClass, at offset: Int) -> UInt {
        unsafeBitCast(objectClass, to: UnsafeRawPointer.self).load(fromByteOffset: offset, as: UInt.self)
    }

    /// The one metadata word where the overriding probe differs from `NSManagedObject` and the plain probe does not.
    private static func findSlot() -> Int? {
        guard let size = readableMetadataSize(of: NSManagedObject.self) else { return nil }
        var candidates: [Int] = []
        for offset in stride(from: 2 * MemoryLayout<UInt>.size, to: size, by: MemoryLayout<UInt>.size) {
            let base = word(of: NSManagedObject.self, at: offset)
            if word(of: PlainProbe.self, at: offset) == base && word(of: OverridingProbe.self, at: offset) != base {
                candidates.append(offset)
            }
        }
        return candidates.count == 1 ? candidates[0] : nil
    }

    /// The bytes of `objectClass`'s metadata from its address point on (its class size less its address point, from
    /// the metadata header), or nil when the header does not look like Swift class metadata.
    private static func readableMetadataSize(of objectClass: AnyClass) -> Int? {
        #if canImport(ObjectiveC)
        let header = 5 * MemoryLayout<UInt>.size   // isa, superclass, cache, vtable cache, data
        #else
        let header = 2 * MemoryLayout<UInt>.size   // kind, superclass
        #endif
        let metadata = unsafeBitCast(objectClass, to: UnsafeRawPointer.self)
        // flags (4), instance address point (4), instance size (4), alignment mask (2), reserved (2), class size (4),
        // class address point (4).
        let classSize = Int(metadata.load(fromByteOffset: header + 16, as: UInt32.self))
        let addressPoint = Int(metadata.load(fromByteOffset: header + 20, as: UInt32.self))
        let size = classSize - addressPoint
        guard addressPoint >= 0, size > header + 24, size < 1 << 16 else { return nil }
        return size
    }
}
