import Foundation
import OpenCoreDataSupport

/// The arguments of a format string: C variadic arguments (`NSPredicate(format:_:)`) or an array
/// (`NSPredicate(format:argumentArray:)`).
///
/// Values are recovered by dynamic casts of the original arguments (a class instance's C encoding is just its
/// pointer), falling back to the C encoding only for number conversions of types this layer does not know.
package enum FormatArguments {
    case variadic([any CVarArg])
    case array([Any])

    var count: Int {
        switch self {
        case .variadic(let values): return values.count
        case .array(let values): return values.count
        }
    }

    func raw(_ index: Int) -> Any {
        switch self {
        case .variadic(let values): return values[index]
        case .array(let values): return values[index]
        }
    }

    /// `%@`: the object itself (`NSNull` and optionals become `nil`).
    func object(_ index: Int) -> Any? {
        PredicateValue.normalize(raw(index))
    }

    /// `%K`: a key path string.
    func keyPath(_ index: Int) -> String? {
        PredicateValue.normalize(raw(index)).flatMap(PredicateValue.string)
    }

    /// `%d %i %o %u %x %X %c` with a length modifier: the argument converted as `printf` would read it
    /// (`%d` reads a 32-bit `int`, `%ld`/`%lld`/`%qd` a 64-bit one, `%hd` a `short`, `%hhd` a `char`).
    func integer(_ index: Int, length: String, unsigned: Bool) -> Any? {
        let value = raw(index)
        let bits: Int64
        if let integer = ExactCast.exactly(value, Int.self) {
            bits = Int64(integer)   // the usual argument, without the general normalization's casts
        } else if let number = PredicateValue.normalize(value).flatMap(PredicateNumber.init) {
            if let integer = number.int64Value {
                bits = integer
            } else {
                let d = number.doubleValue
                guard d.isFinite else { return nil }
                bits = abs(d) < 9.2e18 ? Int64(d.rounded(.towardZero)) : (d < 0 ? Int64.min : Int64.max)
            }
        } else if let word = Self.foreignEncoding(value) {
            bits = Int64(word)
        } else {
            return nil
        }
        switch (length, unsigned) {
        case ("hh", false): return Int(Int8(truncatingIfNeeded: bits))
        case ("hh", true): return Int(UInt8(truncatingIfNeeded: bits))
        case ("h", false): return Int(Int16(truncatingIfNeeded: bits))
        case ("h", true): return Int(UInt16(truncatingIfNeeded: bits))
        case ("", false): return Int(Int32(truncatingIfNeeded: bits))
        case ("", true): return Int(UInt32(truncatingIfNeeded: bits))
        case (_, false): return Int(bits)
        case (_, true): return PredicateNumber(unsigned: UInt64(bitPattern: bits)).value
        }
    }

    /// `%f %e %g %a` (and their upper-case forms, with or without `l`/`L`): the argument as a `Double`.
    func floatingPoint(_ index: Int) -> Double? {
        let value = raw(index)
        // A `Double` (the usual argument) without the general normalization's casts (about 4,000 instructions).
        if let double = ExactCast.exactly(value, Double.self) { return double }
        if let number = PredicateValue.normalize(value).flatMap(PredicateNumber.init) { return number.doubleValue }
        if let word = Self.foreignEncoding(value) {
            return Double(bitPattern: UInt64(bitPattern: Int64(word)))
        }
        return nil
    }

    /// The first word of the C encoding of a `CVarArg` type this layer does not know (a user's own numeric type).
    /// Strings, Foundation objects and the types with placeholder encodings are never decoded this way.
    private static func foreignEncoding(_ value: Any) -> Int? {
        if value is String || value is Substring || value is NSObject || value is Date || value is UUID || value is Data
            || value is URL || value is Decimal || PredicateValue.collection(value) != nil || PredicateValue.dictionary(value) != nil {
            return nil
        }
        return (value as? any CVarArg)?._cVarArgEncoding.first
    }

    /// `%s` / `%S`: a string (Swift or Foundation string, or a C string pointer).
    func cString(_ index: Int) -> String? {
        let value = raw(index)
        if let string = PredicateValue.normalize(value).flatMap(PredicateValue.string) { return string }
        if let pointer = value as? UnsafePointer<CChar> { return String(cString: pointer) }
        if let pointer = value as? UnsafeMutablePointer<CChar> { return String(cString: pointer) }
        if let characters = value as? [CChar] {
            return characters.withUnsafeBufferPointer { buffer in
                String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return nil
    }

    /// `%c` / `%C`: the character with the argument's code.
    func character(_ index: Int) -> String? {
        let value = raw(index)
        if let string = PredicateValue.normalize(value).flatMap(PredicateValue.string), string.unicodeScalars.count == 1 {
            return string
        }
        guard let code = PredicateValue.normalize(value).flatMap(PredicateNumber.init)?.int64Value,
              code >= 0, code <= 0x10FFFF, let scalar = Unicode.Scalar(UInt32(code)) else { return nil }
        return String(Character(scalar))
    }
}
