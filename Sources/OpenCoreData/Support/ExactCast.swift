/// A value read out of an `Any` when its type is exactly the value type asked for (no bridging), found by opening the
/// existential and comparing types: a cast (`as?`) runs the runtime's general dynamic cast, about 250 instructions
/// even when the value's type is the cast's own.
///
/// ```swift
/// ExactCast.exactly("a" as Any, String.self)   // "a"
/// ExactCast.exactly(1 as Any, Int64.self)      // nil: an Int
/// ```
///
/// Here, below the predicate layer and the stores' value conversions that both use it; inlinable so that each use
/// still specializes for its type across the module boundary.
package enum ExactCast {
    /// `value` when its type is exactly `Wanted`, nil otherwise.
    @inlinable @inline(__always)
    package static func exactly<Wanted>(_ value: Any, _: Wanted.Type) -> Wanted? {
        // The bit cast is to the type `Opened` was just found to be: it copies the value as itself.
        func open<Opened>(_ opened: Opened) -> Wanted? { Opened.self == Wanted.self ? unsafeBitCast(opened, to: Wanted.self) : nil }
        return _openExistential(value, do: open)
    }
}
