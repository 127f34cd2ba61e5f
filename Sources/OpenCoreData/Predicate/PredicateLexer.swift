import Foundation

/// The reserved words of the predicate language (case-insensitive; `#word` uses one as a key).
enum PredicateKeyword: String, CaseIterable {
    case and = "AND", or = "OR", `in` = "IN", not = "NOT", all = "ALL", any = "ANY", some = "SOME", none = "NONE"
    case like = "LIKE", caseInsensitive = "CASEINSENSITIVE", ci = "CI", matches = "MATCHES", contains = "CONTAINS"
    case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", between = "BETWEEN", null = "NULL", `nil` = "NIL"
    case `self` = "SELF", `true` = "TRUE", yes = "YES", `false` = "FALSE", no = "NO", first = "FIRST", last = "LAST"
    case size = "SIZE", anyKey = "ANYKEY", subquery = "SUBQUERY", fetch = "FETCH", cast = "CAST"
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE", utiConformsTo = "UTI-CONFORMS-TO"
    case utiEquals = "UTI-EQUALS", function = "FUNCTION", ternary = "TERNARY"

    static let byName: [String: PredicateKeyword] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}

/// Punctuation and operator symbols.
enum PredicateSymbol: String {
    case leftParen = "(", rightParen = ")", leftBrace = "{", rightBrace = "}", leftBracket = "[", rightBracket = "]"
    case comma = ",", dot = "."
    case equal = "==", notEqual = "!=", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case andAnd = "&&", orOr = "||", bang = "!"
    case plus = "+", minus = "-", star = "*", slash = "/", power = "**"
    case ampersand = "&", pipe = "|", caret = "^", shiftLeft = "<<", shiftRight = ">>", tilde = "~", assign = ":="
}

/// One token of a format string.
struct PredicateToken {
    enum Kind {
        /// A key name; `escaped` for `#name`, which is never a keyword.
        case identifier(String, escaped: Bool)
        case keyword(PredicateKeyword)
        /// `@count`, `@sum`, … (with the `@`).
        case collectionOperator(String)
        /// A function name with colons: `sum:`, `modulus:by:`.
        case selector(String)
        /// An `Int`, `UInt64` or `Double` literal, or a number from `%d`/`%f`.
        case number(Any)
        case string(String)
        case variable(String)
        /// `%@`: an object argument (possibly an `NSExpression`).
        case objectArgument(Any?)
        /// `%K`: a key path argument, not re-lexed.
        case keyPathArgument(String)
        case symbol(PredicateSymbol)
        case end
    }

    let kind: Kind
    /// Offset in Unicode scalars from the start of the format string.
    let offset: Int
    /// The source text, for error messages.
    let text: String

    var symbol: PredicateSymbol? {
        if case .symbol(let symbol) = kind { return symbol }
        return nil
    }

    var keyword: PredicateKeyword? {
        if case .keyword(let keyword) = kind { return keyword }
        return nil
    }

    var displayText: String {
        if case .end = kind { return "end of input" }
        return "\"\(text)\""
    }
}

/// Splits a format string into tokens, substituting format arguments (`%@ %K %d …`) as it goes.
struct PredicateLexer {
    private let scalars: [Unicode.Scalar]
    private let format: String
    private let arguments: FormatArguments
    private var position = 0
    private var argumentIndex = 0

    init(_ format: String, arguments: FormatArguments) {
        self.format = format
        self.scalars = Array(format.unicodeScalars)
        self.arguments = arguments
    }

    /// All tokens, ending with `.end`.
    static func tokenize(_ format: String, arguments: FormatArguments) throws -> [PredicateToken] {
        var lexer = PredicateLexer(format, arguments: arguments)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if case .end = token.kind { return tokens }
        }
    }

    /// Whether `name` can be printed bare as a key (a non-reserved identifier).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isIdentifierStart(first) else { return false }
        return name.unicodeScalars.allSatisfy(isIdentifierPart)
    }

    static func isReserved(_ name: String) -> Bool {
        PredicateKeyword.byName[name.uppercased()] != nil
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII letters without a Unicode property look-up (about 150 instructions each).
        if scalar.isASCII { return scalar == "_" || (scalar.value | 0x20 >= 97 && scalar.value | 0x20 <= 122) }
        return scalar.properties.isAlphabetic
    }

    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || (scalar.value >= 48 && scalar.value <= 57)
            || (!scalar.isASCII && scalar.properties.numericType != nil)
    }

    /// Whitespace between tokens; ASCII is answered without a Unicode property look-up.
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || (scalar.value >= 9 && scalar.value <= 13) }
        return scalar.properties.isWhitespace
    }

    private func error(_ message: String, at offset: Int, expected: String? = nil) -> NSError {
        let token: String
        if offset >= scalars.count {
            token = "end of input"
        } else {
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars[offset..<min(scalars.count, offset + 12)])
            token = "\"\(String(text))\""
        }
        return PredicateError.parse(message, format: format, offset: offset, token: token, expected: expected)
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        position + ahead < scalars.count ? scalars[position + ahead] : nil
    }

    private func text(from start: Int) -> String {
        let slice = scalars[start..<position]
        // ASCII text is written as its bytes (a short token becomes a small string, without an allocation); appending
        // scalars to a view cost about 3,500 instructions a token.
        if slice.allSatisfy(\.isASCII) {
            return String(unsafeUninitializedCapacity: slice.count) { bytes in
                for (index, scalar) in zip(bytes.indices, slice) { bytes[index] = UInt8(truncatingIfNeeded: scalar.value) }
                return slice.count
            }
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: slice)
        return String(view)
    }

    private mutating func token(_ kind: PredicateToken.Kind, from start: Int) -> PredicateToken {
        PredicateToken(kind: kind, offset: start, text: text(from: start))
    }

    mutating func next() throws -> PredicateToken {
        while let c = peek(), Self.isWhitespace(c) { position += 1 }
        let start = position
        guard let c = peek() else { return PredicateToken(kind: .end, offset: start, text: "") }

        if c == "\"" || c == "'" { return try lexString(quote: c) }
        if c.value >= 48 && c.value <= 57 || (c == "." && (peek(1).map { $0.value >= 48 && $0.value <= 57 } ?? false)) {
            return try lexNumber()
        }
        if c == "%" { return try lexFormatSpecifier() }
        if c == "$" {
            position += 1
            guard let name = try lexIdentifierText(), !name.isEmpty else {
                throw error("a variable needs a name after $", at: start, expected: "an identifier")
            }
            return token(.variable(name), from: start)
        }
        if c == "#" {
            position += 1
            guard let name = try lexIdentifierText(), !name.isEmpty else {
                throw error("# must be followed by a name", at: start, expected: "an identifier")
            }
            return token(.identifier(name, escaped: true), from: start)
        }
        if c == "@" {
            position += 1
            guard let name = try lexIdentifierText(), !name.isEmpty else {
                throw error("@ must be followed by a collection operator name", at: start, expected: "@count, @sum, …")
            }
            return token(.collectionOperator("@" + name), from: start)
        }
        if Self.isIdentifierStart(c) || c == "\\" {
            guard let name = try lexIdentifierText() else {
                throw error("unexpected character", at: start)
            }
            // `UTI-CONFORMS-TO` and `UTI-EQUALS` contain hyphens.
            if name.uppercased() == "UTI", peek() == "-" {
                for keyword in [PredicateKeyword.utiConformsTo, .utiEquals] {
                    let rest = Array(keyword.rawValue.unicodeScalars.dropFirst(3))
                    if position + rest.count <= scalars.count,
                       String(String.UnicodeScalarView(scalars[position..<(position + rest.count)])).uppercased()
                        == String(String.UnicodeScalarView(rest)) {
                        position += rest.count
                        return token(.keyword(keyword), from: start)
                    }
                }
            }
            // A selector-style function name: `sum:(`, `modulus:by:(`.
            if peek() == ":" && peek(1) != "=" {
                var selector = name + ":"
                position += 1
                while let next = peek(), Self.isIdentifierStart(next) {
                    let save = position
                    guard let part = try lexIdentifierText(), peek() == ":", peek(1) != "=" else {
                        position = save
                        break
                    }
                    selector += part + ":"
                    position += 1
                }
                return token(.selector(selector), from: start)
            }
            if let keyword = PredicateKeyword.byName[name.uppercased()] {
                return token(.keyword(keyword), from: start)
            }
            return token(.identifier(name, escaped: false), from: start)
        }
        return try lexSymbol()
    }

    /// An identifier, with the documented escapes (`\ooo`, `\xHH`, `\uHHHH`) allowed inside it.
    private mutating func lexIdentifierText() throws -> String? {
        // Without escapes the identifier is its source text.
        let start = position
        while let c = peek(), c != "\\", position == start ? Self.isIdentifierStart(c) : Self.isIdentifierPart(c) { position += 1 }
        if peek() != "\\" {
            return position == start && position == scalars.count ? nil : text(from: start)
        }
        position = start
        var result = String.UnicodeScalarView()
        while let c = peek() {
            if c == "\\" {
                let start = position
                position += 1
                guard let scalar = try lexEscape(start: start, allowUnknown: false) else { return nil }
                // An escape may spell any identifier character, but nothing that could not be printed back bare.
                guard result.isEmpty ? Self.isIdentifierStart(scalar) : Self.isIdentifierPart(scalar) else {
                    throw error("an escape in an identifier must produce a letter, digit or underscore", at: start)
                }
                result.append(scalar)
            } else if result.isEmpty ? Self.isIdentifierStart(c) : Self.isIdentifierPart(c) {
                result.append(c)
                position += 1
            } else {
                break
            }
        }
        return result.isEmpty && position == scalars.count ? nil : String(result)
    }

    private mutating func lexString(quote: Unicode.Scalar) throws -> PredicateToken {
        let start = position
        position += 1
        var value = String.UnicodeScalarView()
        while true {
            guard let c = peek() else {
                throw error("unterminated string literal", at: start, expected: "a closing \(quote)")
            }
            position += 1
            if c == quote { break }
            if c == "\\" {
                let escapeStart = position - 1
                if let scalar = try lexEscape(start: escapeStart, allowUnknown: true) {
                    value.append(scalar)
                } else if let kept = peek() {
                    // An unknown escape keeps its backslash, so regular expressions such as '\d+' survive.
                    value.append("\\")
                    value.append(kept)
                    position += 1
                }
                continue
            }
            value.append(c)
        }
        return token(.string(String(value)), from: start)
    }

    /// Decodes the escape after a backslash (already consumed). Returns `nil` for an unknown escape when
    /// `allowUnknown` (leaving the character unconsumed); throws for a malformed one.
    private mutating func lexEscape(start: Int, allowUnknown: Bool) throws -> Unicode.Scalar? {
        guard let c = peek() else { throw error("unterminated escape sequence", at: start) }
        func hex(_ maxDigits: Int, minDigits: Int) throws -> UInt32 {
            var value: UInt32 = 0
            var digits = 0
            while digits < maxDigits, let d = peek(), let v = Self.hexValue(d) {
                value = value * 16 + v
                digits += 1
                position += 1
            }
            guard digits >= minDigits else { throw error("invalid escape sequence", at: start, expected: "hexadecimal digits") }
            return value
        }
        switch c {
        case "\\", "'", "\"", "?": position += 1; return c
        case "n": position += 1; return "\n"
        case "t": position += 1; return "\t"
        case "r": position += 1; return "\r"
        case "b": position += 1; return "\u{8}"
        case "f": position += 1; return "\u{C}"
        case "v": position += 1; return "\u{B}"
        case "a": position += 1; return "\u{7}"
        case "x", "X":
            position += 1
            let value = try hex(2, minDigits: 1)
            return Unicode.Scalar(value)!
        case "u", "U":
            position += 1
            var value = try hex(4, minDigits: 4)
            if (0xD800...0xDBFF).contains(value) {
                // A surrogate pair written as two escapes.
                guard peek() == "\\", let u = peek(1), u == "u" || u == "U" else {
                    throw error("unpaired surrogate in escape sequence", at: start)
                }
                position += 2
                let low = try hex(4, minDigits: 4)
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in escape sequence", at: start) }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(value) else { throw error("invalid Unicode scalar in escape sequence", at: start) }
            return scalar
        case "0"..."7":
            var value: UInt32 = 0
            var digits = 0
            while digits < 3, let d = peek(), d.value >= 48, d.value <= 55 {
                value = value * 8 + (d.value - 48)
                digits += 1
                position += 1
            }
            return Unicode.Scalar(value)!
        default:
            if allowUnknown { return nil }
            throw error("invalid escape sequence", at: start)
        }
    }

    static func hexValue(_ c: Unicode.Scalar) -> UInt32? {
        switch c.value {
        case 48...57: return c.value - 48
        case 65...70: return c.value - 55
        case 97...102: return c.value - 87
        default: return nil
        }
    }

    private mutating func lexNumber() throws -> PredicateToken {
        let start = position
        func digits(_ isDigit: (Unicode.Scalar) -> Bool) -> String {
            var text = ""
            while let c = peek(), isDigit(c) { text.unicodeScalars.append(c); position += 1 }
            return text
        }
        let isDecimal: (Unicode.Scalar) -> Bool = { $0.value >= 48 && $0.value <= 57 }
        var value: Any
        if peek() == "0", let prefix = peek(1), "xXoObB".unicodeScalars.contains(prefix) {
            position += 2
            let radix: Int
            let body: String
            switch prefix {
            case "x", "X": radix = 16; body = digits { Self.hexValue($0) != nil }
            case "o", "O": radix = 8; body = digits { $0.value >= 48 && $0.value <= 55 }
            default: radix = 2; body = digits { $0 == "0" || $0 == "1" }
            }
            guard !body.isEmpty else { throw error("invalid number literal", at: start, expected: "digits after the base prefix") }
            if let v = Int64(body, radix: radix) {
                value = Int(v)
            } else if let v = UInt64(body, radix: radix) {
                value = v
            } else {
                throw error("number literal out of range", at: start)
            }
        } else {
            var text = digits(isDecimal)
            var isInteger = true
            if peek() == ".", let next = peek(1), isDecimal(next) {
                position += 1
                text += "." + digits(isDecimal)
                isInteger = false
            }
            if let e = peek(), e == "e" || e == "E" {
                let save = position
                position += 1
                var exponent = "e"
                if let sign = peek(), sign == "+" || sign == "-" { exponent.unicodeScalars.append(sign); position += 1 }
                let expDigits = digits(isDecimal)
                if expDigits.isEmpty {
                    position = save
                } else {
                    text += exponent + expDigits
                    isInteger = false
                }
            }
            if isInteger, let v = Int64(text) {
                value = Int(v)
            } else if isInteger, let v = UInt64(text) {
                value = v
            } else if let v = Double(text), v.isFinite {
                value = v
            } else {
                throw error("number literal out of range", at: start)
            }
        }
        if let c = peek(), Self.isIdentifierPart(c) {
            throw error("invalid number literal", at: start, expected: "an operator after a number")
        }
        return token(.number(value), from: start)
    }

    private mutating func lexFormatSpecifier() throws -> PredicateToken {
        let start = position
        position += 1
        guard let c = peek() else { throw error("incomplete format specifier", at: start, expected: "@, K, d, f, …") }
        if c == "%" { position += 1; return token(.string("%"), from: start) }
        func takeArgument() throws -> Int {
            guard argumentIndex < arguments.count else {
                throw error("not enough arguments for the format specifiers", at: start, expected: "argument \(argumentIndex + 1)")
            }
            argumentIndex += 1
            return argumentIndex - 1
        }
        if c == "@" {
            position += 1
            let index = try takeArgument()
            return token(.objectArgument(arguments.object(index)), from: start)
        }
        if c == "K" {
            position += 1
            let index = try takeArgument()
            guard let keyPath = arguments.keyPath(index) else {
                throw error("%K needs a string argument", at: start, expected: "a key path string")
            }
            return token(.keyPathArgument(keyPath), from: start)
        }
        // printf-style: flags, width, precision, length, conversion.
        while let f = peek(), "-+ #0'".unicodeScalars.contains(f) { position += 1 }
        while let d = peek(), d.value >= 48 && d.value <= 57 { position += 1 }
        if peek() == "." {
            position += 1
            while let d = peek(), d.value >= 48 && d.value <= 57 { position += 1 }
        }
        var length = ""
        while let l = peek(), "hlqLzjt".unicodeScalars.contains(l), length.count < 2 {
            length.unicodeScalars.append(l)
            position += 1
        }
        guard let conversion = peek() else {
            throw error("incomplete format specifier", at: start, expected: "a conversion character")
        }
        position += 1
        switch conversion {
        case "d", "i", "o", "u", "x", "X", "D", "U", "O":
            let index = try takeArgument()
            let unsigned = "ouxXUO".unicodeScalars.contains(conversion)
            let effectiveLength = (conversion == "D" || conversion == "U" || conversion == "O") ? "l" : length
            guard let value = arguments.integer(index, length: effectiveLength, unsigned: unsigned) else {
                throw error("%\(conversion) needs an integer argument", at: start)
            }
            return token(.number(value), from: start)
        case "f", "F", "e", "E", "g", "G", "a", "A":
            let index = try takeArgument()
            guard let value = arguments.floatingPoint(index) else {
                throw error("%\(conversion) needs a floating-point argument", at: start)
            }
            return token(.number(value), from: start)
        case "c", "C":
            let index = try takeArgument()
            guard let value = arguments.character(index) else { throw error("%c needs a character code argument", at: start) }
            return token(.string(value), from: start)
        case "s", "S":
            let index = try takeArgument()
            guard let value = arguments.cString(index) else { throw error("%s needs a string argument", at: start) }
            return token(.string(value), from: start)
        default:
            throw error("invalid format specifier %\(conversion)", at: start,
                        expected: "%@, %K, %%, or a printf conversion such as %d, %ld, %f, %s")
        }
    }

    private mutating func lexSymbol() throws -> PredicateToken {
        let start = position
        let c = peek()!
        let n = peek(1)
        func take(_ count: Int, _ symbol: PredicateSymbol) -> PredicateToken {
            position += count
            return token(.symbol(symbol), from: start)
        }
        switch c {
        case "(": return take(1, .leftParen)
        case ")": return take(1, .rightParen)
        case "{": return take(1, .leftBrace)
        case "}": return take(1, .rightBrace)
        case "[": return take(1, .leftBracket)
        case "]": return take(1, .rightBracket)
        case ",": return take(1, .comma)
        case ".": return take(1, .dot)
        case "=":
            if n == "=" { return take(2, .equal) }
            if n == "<" { return take(2, .lessEqual) }
            if n == ">" { return take(2, .greaterEqual) }
            return take(1, .equal)
        case "!": return n == "=" ? take(2, .notEqual) : take(1, .bang)
        case "<":
            if n == "=" { return take(2, .lessEqual) }
            if n == ">" { return take(2, .notEqual) }
            if n == "<" { return take(2, .shiftLeft) }
            return take(1, .less)
        case ">":
            if n == "=" { return take(2, .greaterEqual) }
            if n == ">" { return take(2, .shiftRight) }
            return take(1, .greater)
        case "&": return n == "&" ? take(2, .andAnd) : take(1, .ampersand)
        case "|": return n == "|" ? take(2, .orOr) : take(1, .pipe)
        case "+": return take(1, .plus)
        case "-": return take(1, .minus)
        case "*": return n == "*" ? take(2, .power) : take(1, .star)
        case "/": return take(1, .slash)
        case "^": return take(1, .caret)
        case "~": return take(1, .tilde)
        case ":" where n == "=": return take(2, .assign)
        default:
            throw error(c == "\0" ? "unexpected NUL character" : "unexpected character", at: start)
        }
    }
}
