import Foundation

/// A small, strict XML reader for the files Core Data tools write (model `contents`, mapping models):
/// elements, attributes, text, CDATA, comments, processing instructions and a DOCTYPE, with the five
/// predefined entities and character references. It builds a tree and reports the first error with its
/// line and column; it never traps on malformed input.
///
/// (Foundation's `XMLParser` lives in FoundationXML on Linux and needs libxml2 at run time; model files
/// are small and regular, so a self-contained reader is simpler and gives better messages.)
package struct XMLTree {
    /// An element: its name, attributes in document order, children and text.
    package final class Element {
        package let name: String
        package let attributes: [(name: String, value: String)]
        package var children: [Element] = []
        package var text = ""
        /// Where the element starts, for messages.
        package let line: Int

        package init(name: String, attributes: [(name: String, value: String)], line: Int) {
            self.name = name
            self.attributes = attributes
            self.line = line
        }

        /// The value of the attribute `name`, if present.
        package subscript(_ name: String) -> String? {
            attributes.first(where: { $0.name == name })?.value
        }

        /// The child elements named `name`.
        package func children(named name: String) -> [Element] { children.filter { $0.name == name } }

        /// The first child element named `name`.
        package func child(named name: String) -> Element? { children.first { $0.name == name } }
    }

    /// A syntax error with its position.
    package struct SyntaxError: Error, CustomStringConvertible {
        package var line: Int
        package var column: Int
        package var message: String
        package var description: String { "line \(line), column \(column): \(message)" }
    }

    /// The document element.
    package let root: Element

    /// The deepest element nesting accepted (deeper input is refused, not recursed into).
    static let maximumDepth = 256

    /// Parses `data` (UTF-8) into a tree.
    package init(data: Data) throws(SyntaxError) {
        var reader = Reader(bytes: Array(data))
        root = try reader.parseDocument()
    }

    /// The byte-level parser.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var lineStart = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            // A UTF-8 byte order mark is allowed.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3; lineStart = 3 }
        }

        func error(_ message: String) -> SyntaxError {
            SyntaxError(line: line, column: index - lineStart + 1, message: message)
        }

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func advance() {
            if bytes[index] == UInt8(ascii: "\n") { line += 1; lineStart = index + 1 }
            index += 1
        }

        func lookingAt(_ literal: String) -> Bool {
            let utf8 = Array(literal.utf8)
            return index + utf8.count <= bytes.count && Array(bytes[index..<index + utf8.count]) == utf8
        }

        mutating func skip(_ literal: String) { for _ in literal.utf8 { advance() } }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { advance() }
        }

        /// Skips up to and including `terminator`, or fails with `what` if the input ends first.
        mutating func skip(until terminator: String, what: String) throws(SyntaxError) {
            while !atEnd {
                if lookingAt(terminator) { skip(terminator); return }
                advance()
            }
            throw error("unterminated \(what)")
        }

        mutating func parseDocument() throws(SyntaxError) -> Element {
            var root: Element?
            while true {
                skipWhitespace()
                if atEnd { break }
                if lookingAt("<?") {
                    try skip(until: "?>", what: "processing instruction")
                } else if lookingAt("<!--") {
                    try skip(until: "-->", what: "comment")
                } else if lookingAt("<!DOCTYPE") {
                    try skipDoctype()
                } else if current == UInt8(ascii: "<") {
                    guard root == nil else { throw error("content after the document element") }
                    root = try parseElement(depth: 0)
                } else {
                    throw error(root == nil ? "expected '<' to start the document element" : "content after the document element")
                }
            }
            guard let root else { throw error(bytes.isEmpty ? "the file is empty" : "no document element") }
            return root
        }

        mutating func skipDoctype() throws(SyntaxError) {
            var bracketDepth = 0
            while let byte = current {
                advance()
                if byte == UInt8(ascii: "[") { bracketDepth += 1 }
                if byte == UInt8(ascii: "]") { bracketDepth -= 1 }
                if byte == UInt8(ascii: ">") && bracketDepth <= 0 { return }
            }
            throw error("unterminated DOCTYPE")
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: ":") || byte >= 0x80
        }

        mutating func parseName(_ what: String) throws(SyntaxError) -> String {
            let start = index
            while let byte = current, Self.isNameByte(byte) { advance() }
            guard index > start else { throw error("expected \(what)") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func parseElement(depth: Int) throws(SyntaxError) -> Element {
            guard depth < XMLTree.maximumDepth else { throw error("elements nested deeper than \(XMLTree.maximumDepth) levels") }
            let startLine = line
            advance()  // '<'
            let name = try parseName("an element name")
            var attributes: [(name: String, value: String)] = []
            while true {
                skipWhitespace()
                guard let byte = current else { throw error("unterminated start tag <\(name)>") }
                if byte == UInt8(ascii: "/") {
                    advance()
                    guard current == UInt8(ascii: ">") else { throw error("expected '>' after '/' in <\(name)>") }
                    advance()
                    return Element(name: name, attributes: attributes, line: startLine)
                }
                if byte == UInt8(ascii: ">") { advance(); break }
                let attributeName = try parseName("an attribute name in <\(name)>")
                skipWhitespace()
                guard current == UInt8(ascii: "=") else { throw error("expected '=' after attribute '\(attributeName)' in <\(name)>") }
                advance()
                skipWhitespace()
                guard let quote = current, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                    throw error("expected a quoted value for attribute '\(attributeName)' in <\(name)>")
                }
                advance()
                let value = try parseText(until: quote, what: "value of attribute '\(attributeName)'")
                advance()  // closing quote
                if attributes.contains(where: { $0.name == attributeName }) {
                    throw error("duplicate attribute '\(attributeName)' in <\(name)>")
                }
                attributes.append((attributeName, value))
            }
            let element = Element(name: name, attributes: attributes, line: startLine)
            while true {
                guard !atEnd else { throw error("unterminated element <\(name)> (opened on line \(startLine))") }
                if lookingAt("</") {
                    skip("</")
                    let closing = try parseName("an element name after '</'")
                    guard closing == name else { throw error("</\(closing)> does not close <\(name)> (opened on line \(startLine))") }
                    skipWhitespace()
                    guard current == UInt8(ascii: ">") else { throw error("expected '>' to end </\(name)>") }
                    advance()
                    return element
                } else if lookingAt("<!--") {
                    try skip(until: "-->", what: "comment")
                } else if lookingAt("<![CDATA[") {
                    skip("<![CDATA[")
                    let start = index
                    try skip(until: "]]>", what: "CDATA section")
                    element.text += String(decoding: bytes[start..<(index - 3)], as: UTF8.self)
                } else if lookingAt("<?") {
                    try skip(until: "?>", what: "processing instruction")
                } else if current == UInt8(ascii: "<") {
                    element.children.append(try parseElement(depth: depth + 1))
                } else {
                    element.text += try parseText(until: UInt8(ascii: "<"), what: "text of <\(name)>")
                }
            }
        }

        /// Reads character data up to (not including) `terminator`, decoding references.
        mutating func parseText(until terminator: UInt8, what: String) throws(SyntaxError) -> String {
            var result: [UInt8] = []
            while let byte = current {
                if byte == terminator { return String(decoding: result, as: UTF8.self) }
                if byte == UInt8(ascii: "&") {
                    result += try parseReference()
                } else {
                    if byte == 0 { throw error("NUL byte in \(what)") }
                    if terminator != UInt8(ascii: "<") && byte == UInt8(ascii: "<") { throw error("'<' in \(what)") }
                    result.append(byte)
                    advance()
                }
            }
            throw error("unterminated \(what)")
        }

        mutating func parseReference() throws(SyntaxError) -> [UInt8] {
            advance()  // '&'
            let start = index
            while let byte = current, byte != UInt8(ascii: ";") {
                guard index - start < 12 else { throw error("unterminated entity reference") }
                advance()
            }
            guard current == UInt8(ascii: ";") else { throw error("unterminated entity reference") }
            let name = String(decoding: bytes[start..<index], as: UTF8.self)
            advance()
            switch name {
            case "lt": return Array("<".utf8)
            case "gt": return Array(">".utf8)
            case "amp": return Array("&".utf8)
            case "quot": return Array("\"".utf8)
            case "apos": return Array("'".utf8)
            default:
                var scalarValue: UInt32?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    scalarValue = UInt32(name.dropFirst(2), radix: 16)
                } else if name.hasPrefix("#") {
                    scalarValue = UInt32(name.dropFirst(), radix: 10)
                }
                guard let scalarValue, scalarValue != 0, let scalar = Unicode.Scalar(scalarValue) else {
                    throw error("unknown entity reference '&\(name);'")
                }
                return Array(String(Character(scalar)).utf8)
            }
        }
    }
}
