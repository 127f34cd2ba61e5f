/// A strict check of JSON text against RFC 8259's grammar, before decoding: Foundation's decoder also accepts
/// some text that is not JSON (a trailing comma in an object or array), which the API refuses as malformed.
/// Nesting deeper than `maxDepth` is refused too.
struct JSONSyntax {
    private let bytes: [UInt8]
    private var index = 0
    private let maxDepth: Int

    /// Whether `bytes` is one JSON value (surrounded by optional whitespace).
    static func isValid(_ bytes: [UInt8], maxDepth: Int = 32) -> Bool {
        var parser = JSONSyntax(bytes: bytes, maxDepth: maxDepth)
        guard parser.value(depth: 0) else { return false }
        parser.skipWhitespace()
        return parser.index == bytes.count
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        index += 1
        return true
    }

    private mutating func literal(_ text: String) -> Bool {
        for byte in text.utf8 where !consume(byte) { return false }
        return true
    }

    private mutating func value(depth: Int) -> Bool {
        guard depth <= maxDepth else { return false }
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), depth: depth, keyed: true)
        case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), depth: depth, keyed: false)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    private mutating func container(close: UInt8, depth: Int, keyed: Bool) -> Bool {
        index += 1
        skipWhitespace()
        if consume(close) { return true }
        while true {
            if keyed {
                skipWhitespace()
                guard string() else { return false }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return false }
            }
            guard value(depth: depth + 1) else { return false }
            skipWhitespace()
            if consume(close) { return true }
            guard consume(UInt8(ascii: ",")) else { return false }
        }
    }

    private mutating func string() -> Bool {
        guard consume(UInt8(ascii: "\"")) else { return false }
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return true
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return false }
                index += 1
                if escaped == UInt8(ascii: "u") {
                    for _ in 0..<4 {
                        guard let hex = current, (0x30...0x39).contains(hex) || (0x41...0x46).contains(hex) || (0x61...0x66).contains(hex) else { return false }
                        index += 1
                    }
                } else if !"\"\\/bfnrt".utf8.contains(escaped) {
                    return false
                }
            case 0x00..<0x20: return false
            default: continue
            }
        }
        return false
    }

    private mutating func number() -> Bool {
        _ = consume(UInt8(ascii: "-"))
        if !consume(UInt8(ascii: "0")) {
            guard digits() else { return false }
        }
        if consume(UInt8(ascii: ".")) { guard digits() else { return false } }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard digits() else { return false }
        }
        return true
    }

    private mutating func digits() -> Bool {
        let start = index
        while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
        return index > start
    }
}
