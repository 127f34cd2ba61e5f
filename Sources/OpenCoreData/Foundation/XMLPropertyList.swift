import Foundation
import OpenCoreDataSupport

/// A reader of XML property lists (`<plist version="1.0">…</plist>`, as `PropertyListSerialization` writes them) on
/// OpenCoreData's own XML reader, for store metadata: swift-corelibs-foundation's reader leaks memory on every
/// malformed list (found by fuzzing store metadata under AddressSanitizer), and store files are input. It reads
/// `dict` (with `key`s), `array`, `string`, `integer`, `real`, `true`, `false`, `date` (`yyyy-MM-ddTHH:mm:ssZ`) and
/// `data` (Base64); anything else, or any malformed value, throws.
///
/// For example:
/// ```swift
/// let metadata = try XMLPropertyList.read(blob).foundationObject() as? [String: Any]
/// ```
enum XMLPropertyList {
    /// The property list in `data`.
    static func read(_ data: Data) throws(BinaryPropertyListError) -> PropertyListObject {
        let tree: XMLTree
        do {
            tree = try XMLTree(data: data)
        } catch {
            throw BinaryPropertyListError(description: "not a well-formed XML property list: \(error)")
        }
        guard tree.root.name == "plist", tree.root.children.count == 1 else {
            throw BinaryPropertyListError(description: "an XML property list has one value inside <plist>")
        }
        return try object(tree.root.children[0])
    }

    private static func object(_ element: XMLTree.Element) throws(BinaryPropertyListError) -> PropertyListObject {
        func fail(_ what: String) -> BinaryPropertyListError {
            BinaryPropertyListError(description: "line \(element.line): \(what)")
        }
        let text = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch element.name {
        case "dict":
            guard element.children.count % 2 == 0 else { throw fail("a <dict> holds pairs of <key> and value") }
            var entries: [String: PropertyListObject] = [:]
            for index in stride(from: 0, to: element.children.count, by: 2) {
                let key = element.children[index]
                guard key.name == "key", key.children.isEmpty else { throw fail("a <dict> entry starts with a <key>") }
                entries[key.text] = try object(element.children[index + 1])
            }
            return .dictionary(entries)
        case "array":
            var elements: [PropertyListObject] = []
            for child in element.children { elements.append(try object(child)) }
            return .array(elements)
        case "string":
            guard element.children.isEmpty else { throw fail("a <string> holds text only") }
            return .string(element.text)
        case "integer":
            if let value = Int64(text) { return .integer(value) }
            if let value = UInt64(text) { return .unsignedInteger(value) }
            throw fail("<integer> \(text.prefix(40)) is not an integer")
        case "real":
            guard let value = Double(text) else { throw fail("<real> \(text.prefix(40)) is not a number") }
            return .real(value)
        case "true", "false":
            guard element.children.isEmpty, text.isEmpty else { throw fail("<\(element.name)/> is empty") }
            return .boolean(element.name == "true")
        case "date":
            guard let seconds = secondsSinceReferenceDate(text) else { throw fail("<date> \(text.prefix(40)) is not yyyy-MM-ddTHH:mm:ssZ") }
            return .date(seconds)
        case "data":
            guard let bytes = Data(base64Encoded: String(text.filter { !$0.isWhitespace })) else { throw fail("<data> is not Base64") }
            return .data(Array(bytes))
        default:
            throw fail("<\(element.name.prefix(40))> is not a property list element")
        }
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` as seconds since 2001-01-01 00:00:00 UTC, or nil if it is not one.
    static func secondsSinceReferenceDate(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let unixSeconds = Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
        return unixSeconds - 978_307_200
    }
}
