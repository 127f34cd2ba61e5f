/// Number parsing with NSString's `integerValue`/`doubleValue`/`boolValue` leniency: leading white space,
/// an optional sign, the longest numeric prefix, and 0 when there is none. Xcode-written model files rely on
/// it (an "Integer 32" attribute with `defaultValueString="NO"` has the default 0).
package enum LenientNumberParsing {
    /// The integer value of the longest `[+-]?[0-9]+` prefix after white space (clamped to Int64), or 0.
    package static func integerPrefix(_ text: String) -> Int64 {
        var scalars = text.unicodeScalars.drop { $0.properties.isWhitespace }
        var negative = false
        if let sign = scalars.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            scalars = scalars.dropFirst()
        }
        var value: Int64 = 0
        for scalar in scalars {
            guard scalar.isASCII, let digit = Int64(String(scalar)) else { break }
            let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) = multiplied.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return negative ? .min : .max }
            value = added
        }
        return negative ? -value : value
    }

    /// The value of the longest `[+-]?digits[.digits][e[+-]digits]` prefix after white space, or 0.
    package static func doublePrefix(_ text: String) -> Double {
        let bytes = Array(text.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
        var end = 0
        func digits(from start: Int) -> Int {
            var index = start
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "-") || bytes[end] == UInt8(ascii: "+") { end += 1 }
        let integerEnd = digits(from: end)
        var mantissaEnd = integerEnd
        if mantissaEnd < bytes.count, bytes[mantissaEnd] == UInt8(ascii: ".") { mantissaEnd = digits(from: mantissaEnd + 1) }
        guard mantissaEnd > end + (integerEnd == end ? 1 : 0) else { return 0 }  // no digits at all
        end = mantissaEnd
        if end < bytes.count, bytes[end] == UInt8(ascii: "e") || bytes[end] == UInt8(ascii: "E") {
            var exponent = end + 1
            if exponent < bytes.count, bytes[exponent] == UInt8(ascii: "-") || bytes[exponent] == UInt8(ascii: "+") { exponent += 1 }
            let exponentEnd = digits(from: exponent)
            if exponentEnd > exponent { end = exponentEnd }
        }
        return Double(String(decoding: bytes[0..<end], as: UTF8.self)) ?? 0
    }

    /// NSString's `boolValue`: true if, after white space and an optional sign and leading zeros, the text starts
    /// with Y, y, T, t or a digit 1–9.
    package static func boolValue(_ text: String) -> Bool {
        var scalars = text.unicodeScalars.drop { $0.properties.isWhitespace }
        if let sign = scalars.first, sign == "-" || sign == "+" { scalars = scalars.dropFirst() }
        scalars = scalars.drop { $0 == "0" }
        guard let first = scalars.first else { return false }
        return "YyTt123456789".unicodeScalars.contains(first)
    }
}
