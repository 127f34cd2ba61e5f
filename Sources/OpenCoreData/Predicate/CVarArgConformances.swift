import Foundation

// On Linux only strings and plain numbers are `CVarArg`, so `NSPredicate(format: "date > %@", date)` would not
// compile. These conformances make the values that Apple's code passes to `%@` acceptable. The format-string parser
// never reads their C encoding: it recovers each value from the original argument by dynamic cast.
//
// Encodings: an `NSObject` (and so every Foundation class: NSNumber, NSDate, NSArray, NSSet, NSNull, NSUUID, NSData,
// …) encodes as its unretained object pointer, like swift-corelibs-foundation's own `NSString` conformance, so
// `String(format: "%@", object)` keeps working for them. Value types encode as a null pointer: `String(format:)` prints
// them as `(null)` rather than reading garbage.

extension NSObject: @retroactive CVarArg {
    /// The unretained object pointer, as for `NSString`.
    public var _cVarArgEncoding: [Int] {
        [Int(bitPattern: UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))]
    }
}

extension Date: @retroactive CVarArg {
    /// A null pointer: pass dates to `NSPredicate(format:)`, not to `String(format:)`.
    public var _cVarArgEncoding: [Int] { [0] }
}

extension UUID: @retroactive CVarArg {
    /// A null pointer: pass UUIDs to `NSPredicate(format:)`, not to `String(format:)`.
    public var _cVarArgEncoding: [Int] { [0] }
}

extension Data: @retroactive CVarArg {
    /// A null pointer: pass data to `NSPredicate(format:)`, not to `String(format:)`.
    public var _cVarArgEncoding: [Int] { [0] }
}

extension URL: @retroactive CVarArg {
    /// A null pointer: pass URLs to `NSPredicate(format:)`, not to `String(format:)`.
    public var _cVarArgEncoding: [Int] { [0] }
}

extension Decimal: @retroactive CVarArg {
    /// A null pointer: pass decimals to `NSPredicate(format:)`, not to `String(format:)`.
    public var _cVarArgEncoding: [Int] { [0] }
}

extension Array: @retroactive CVarArg {
    /// A null pointer: pass arrays to `NSPredicate(format:)` (`IN %@`, `BETWEEN %@`), not to `String(format:)`.
    public var _cVarArgEncoding: [Int] { [0] }
}

extension Set: @retroactive CVarArg {
    /// A null pointer: pass sets to `NSPredicate(format:)`, not to `String(format:)`.
    public var _cVarArgEncoding: [Int] { [0] }
}

extension Dictionary: @retroactive CVarArg {
    /// A null pointer: pass dictionaries to `NSPredicate(format:)`, not to `String(format:)`.
    public var _cVarArgEncoding: [Int] { [0] }
}
