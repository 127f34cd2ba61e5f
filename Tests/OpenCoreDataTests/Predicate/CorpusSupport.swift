import Foundation

/// A JSON value that keeps integers and reals apart (the corpus distinguishes `1` from `1.0`).
enum CorpusJSON: Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([CorpusJSON])
    case object([String: CorpusJSON])

    subscript(key: String) -> CorpusJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Parses one JSON document.
    static func parse(_ text: String) throws -> CorpusJSON {
        var parser = Parser(scalars: Array(text.unicodeScalars))
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == parser.scalars.count else { throw Parser.Failure(message: "trailing text") }
        return value
    }

    private struct Parser {
        struct Failure: Error { let message: String }
        let scalars: [Unicode.Scalar]
        var index = 0

        mutating func skipWhitespace() {
            while index < scalars.count, " \n\r\t".unicodeScalars.contains(scalars[index]) { index += 1 }
        }

        mutating func value() throws -> CorpusJSON {
            skipWhitespace()
            guard index < scalars.count else { throw Failure(message: "unexpected end") }
            switch scalars[index] {
            case "{":
                index += 1
                var members: [String: CorpusJSON] = [:]
                skipWhitespace()
                if scalars[index] == "}" { index += 1; return .object(members) }
                while true {
                    skipWhitespace()
                    guard case .string(let key) = try value() else { throw Failure(message: "object key") }
                    skipWhitespace()
                    guard scalars[index] == ":" else { throw Failure(message: "colon") }
                    index += 1
                    members[key] = try value()
                    skipWhitespace()
                    if scalars[index] == "," { index += 1; continue }
                    guard scalars[index] == "}" else { throw Failure(message: "object end") }
                    index += 1
                    return .object(members)
                }
            case "[":
                index += 1
                var elements: [CorpusJSON] = []
                skipWhitespace()
                if scalars[index] == "]" { index += 1; return .array(elements) }
                while true {
                    elements.append(try value())
                    skipWhitespace()
                    if scalars[index] == "," { index += 1; continue }
                    guard scalars[index] == "]" else { throw Failure(message: "array end") }
                    index += 1
                    return .array(elements)
                }
            case "\"":
                index += 1
                var result = String.UnicodeScalarView()
                var pendingHigh: UInt32?
                while scalars[index] != "\"" {
                    var c = scalars[index]
                    index += 1
                    if c == "\\" {
                        c = scalars[index]
                        index += 1
                        switch c {
                        case "n": result.append("\n")
                        case "t": result.append("\t")
                        case "r": result.append("\r")
                        case "b": result.append("\u{8}")
                        case "f": result.append("\u{C}")
                        case "u":
                            let hex = String(String.UnicodeScalarView(scalars[index..<(index + 4)]))
                            index += 4
                            let code = UInt32(hex, radix: 16)!
                            if (0xD800...0xDBFF).contains(code) {
                                pendingHigh = code
                            } else if let high = pendingHigh, (0xDC00...0xDFFF).contains(code) {
                                result.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))!)
                                pendingHigh = nil
                            } else {
                                result.append(Unicode.Scalar(code)!)
                            }
                        default: result.append(c)
                        }
                    } else {
                        result.append(c)
                    }
                }
                index += 1
                return .string(String(result))
            case "t": index += 4; return .bool(true)
            case "f": index += 5; return .bool(false)
            case "n": index += 4; return .null
            default:
                let start = index
                while index < scalars.count, "+-0123456789.eE".unicodeScalars.contains(scalars[index]) { index += 1 }
                let text = String(String.UnicodeScalarView(scalars[start..<index]))
                if let int = Int(text) { return .int(int) }
                guard let double = Double(text) else { throw Failure(message: "number \(text)") }
                return .double(double)
            }
        }
    }

    // MARK: Decoding the corpus value encodings

    /// The Foundation value a corpus encoding stands for (`{"$date": …}` → `Date`, `{"$set": […]}` → `NSSet`, …).
    /// `null` is `nil`; inside arrays and argument lists it becomes `NSNull`.
    func decoded() -> Any? {
        switch self {
        case .null: return nil
        case .bool(let b): return b
        case .int(let i): return i
        case .double(let d): return d
        case .string(let s): return s
        case .array(let elements): return elements.map { $0.decoded() ?? NSNull() }
        case .object(let members):
            if members["$null"] != nil { return NSNull() }
            if let text = members["$date"]?.string { return CorpusJSON.date(text) }
            if let hex = members["$data"]?.string { return CorpusJSON.data(hex) }
            if let text = members["$uuid"]?.string { return UUID(uuidString: text) }
            if case .array(let elements)? = members["$set"] { return NSSet(array: elements.map { $0.decoded() ?? NSNull() }) }
            var dictionary: [String: Any] = [:]
            for (key, value) in members {
                if let decoded = value.decoded() { dictionary[key] = decoded }
            }
            return dictionary
        }
    }

    static func date(_ text: String) -> Date {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)!
    }

    static func data(_ hex: String) -> Data {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return Data(bytes)
    }

    /// Whether an evaluated value equals the corpus's expected value (numbers numerically, `true` as 1).
    static func matches(_ actual: Any?, _ expected: CorpusJSON) -> Bool {
        let actual = unwrap(actual)
        switch expected {
        case .null: return actual == nil
        case .bool(let b): return number(actual).map { $0 == (b ? 1 : 0) } ?? false
        case .int(let i): return number(actual).map { $0 == Double(i) } ?? false
        case .double(let d): return number(actual).map { abs($0 - d) < 1e-9 } ?? false
        case .string(let s): return (actual as? String) == s || (actual as? NSString).map { $0 as String == s } ?? false
        case .array(let elements):
            guard let values = actual as? [Any], values.count == elements.count else { return false }
            return zip(values, elements).allSatisfy { matches($0, $1) }
        case .object: return false
        }
    }

    private static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if value is NSNull { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return mirror.children.first.flatMap { unwrap($0.value) } }
        return value
    }

    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let v as Bool: return v ? 1 : 0
        case let v as Int: return Double(v)
        case let v as Double: return v
        case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }
}
