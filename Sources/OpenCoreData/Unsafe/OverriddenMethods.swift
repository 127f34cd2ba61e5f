/// Unsafe fast path "vtable probing" (see ``UnsafeFastPaths``). The layout assumption: Swift class metadata holds each
/// overridable method's vtable entry at one word, which an override in a subclass changes. Checked by
/// `OverriddenMethodsTests`.
///
/// Whether a managed object class overrides one of the `NSManagedObject` methods that the library's fast paths
/// would otherwise call on every property: when it does not, the library does what the base implementation does
/// without the dynamic call.
///
/// - `validateValue(_:forKey:)`: a save need not call it for a property without rules (an optional attribute
///   without validation predicates, an optional relationship without count limits), since the base implementation
///   accepts any value there. That call, with the value boxed in `Any` and compared afterwards for coercion, was 14 %
///   of inserting and saving 100,000 objects.
/// - `willChangeValue(forKey:)`, `didChangeValue(forKey:)` and `primitiveValue(forKey:)`: a `@Managed` attribute
///   setter records the change directly (the old value, the event's change, the updated object) instead of going
///   through the will/did pair and the context's list of open changes, which was a fifth of inserting 100,000
///   objects.
///
/// Swift has no API to ask whether a method is overridden, so the answer is read from the classes' vtables: each
/// method's slot is found once, as the one word of `NSManagedObject`'s class metadata that a private probe class
/// overriding that method changes and a probe that overrides nothing leaves alone. A class overrides the method
/// exactly when its word there differs from `NSManagedObject`'s. If the probes do not single out one word (a runtime
/// whose metadata differs from the one this was written for), every class counts as overriding, and every call
/// goes through the overridable method as before. An unsafe fast path: its callers do not ask (and every class counts
/// as overriding) when `UnsafeFastPaths.isEnabled` is false.
///
/// ```swift
/// OverriddenMethods.isOverridden(.validateValue, by: Mood.self)   // false unless Mood overrides validateValue(_:forKey:)
/// ```
enum OverriddenMethods {
    /// The methods whose overrides are detected.
    enum Method: Int, CaseIterable {
        case validateValue
        case willChangeValue
        case didChangeValue
        case primitiveValue

        /// A class that overrides this method and nothing else.
        fileprivate var probe: NSManagedObject.Type {
            switch self {
            case .validateValue: ValidateValueProbe.self
            case .willChangeValue: WillChangeValueProbe.self
            case .didChangeValue: DidChangeValueProbe.self
            case .primitiveValue: PrimitiveValueProbe.self
            }
        }
    }

    /// The byte offset of each method's vtable slot in class metadata, by `Method.rawValue`; nil for one that could
    /// not be found.
    static let slotOffsets: [Int?] = findSlots()

    /// Whether `objectClass` (or a superclass below `NSManagedObject`) overrides `method`.
    static func isOverridden(_ method: Method, by objectClass: NSManagedObject.Type) -> Bool {
        guard let offset = slotOffsets[method.rawValue] else { return true }
        if objectClass == NSManagedObject.self { return false }
        return word(of: objectClass, at: offset) != word(of: NSManagedObject.self, at: offset)
    }

    /// Whether `objectClass` overrides none of the methods a setter's change tracking calls
    /// (`willChangeValue(forKey:)`, `didChangeValue(forKey:)`, `primitiveValue(forKey:)`). Checked once per object,
    /// at its first setter: three words of the class's metadata compared with `NSManagedObject`'s.
    static func tracksChangesLikeTheBaseClass(_ objectClass: NSManagedObject.Type) -> Bool {
        guard let base = changeTrackingWords else { return false }
        return word(of: objectClass, at: base.offsets.0) == base.words.0 && word(of: objectClass, at: base.offsets.1) == base.words.1
            && word(of: objectClass, at: base.offsets.2) == base.words.2
    }

    /// The vtable slots of `willChangeValue(forKey:)`, `didChangeValue(forKey:)` and `primitiveValue(forKey:)` with
    /// `NSManagedObject`'s words there; nil when one of them could not be found. Tuples, not arrays: read for every
    /// object created, without retaining a buffer.
    private static let changeTrackingWords: (offsets: (Int, Int, Int), words: (UInt, UInt, UInt))? = {
        guard let will = slotOffsets[Method.willChangeValue.rawValue], let did = slotOffsets[Method.didChangeValue.rawValue],
              let primitive = slotOffsets[Method.primitiveValue.rawValue]
        else { return nil }
        let base = NSManagedObject.self
        return ((will, did, primitive), (word(of: base, at: will), word(of: base, at: did), word(of: base, at: primitive)))
    }()

    private final class ValidateValueProbe: NSManagedObject {
        override func validateValue(_ value: inout Any?, forKey key: String) throws {
            try super.validateValue(&value, forKey: key)
        }
    }

    private final class WillChangeValueProbe: NSManagedObject {
        override func willChangeValue(forKey key: String) { super.willChangeValue(forKey: key) }
    }

    private final class DidChangeValueProbe: NSManagedObject {
        override func didChangeValue(forKey key: String) { super.didChangeValue(forKey: key) }
    }

    private final class PrimitiveValueProbe: NSManagedObject {
        override func primitiveValue(forKey key: String) -> Any? { super.primitiveValue(forKey: key) }
    }

    private final class PlainProbe: NSManagedObject {}

    private static func word(of objectClass: AnyClass, at offset: Int) -> UInt {
        unsafeBitCast(objectClass, to: UnsafeRawPointer.self).load(fromByteOffset: offset, as: UInt.self)
    }

    /// For each method, the one metadata word where its probe differs from `NSManagedObject` and the plain probe
    /// does not.
    private static func findSlots() -> [Int?] {
        var slots = [Int?](repeating: nil, count: Method.allCases.count)
        guard let size = readableMetadataSize(of: NSManagedObject.self) else { return slots }
        for method in Method.allCases {
            var candidates: [Int] = []
            for offset in stride(from: 2 * MemoryLayout<UInt>.size, to: size, by: MemoryLayout<UInt>.size) {
                let base = word(of: NSManagedObject.self, at: offset)
                if word(of: PlainProbe.self, at: offset) == base && word(of: method.probe, at: offset) != base {
                    candidates.append(offset)
                }
            }
            if candidates.count == 1 { slots[method.rawValue] = candidates[0] }
        }
        return slots
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
