import Foundation

extension PropertyListObject {
    /// The Foundation form of a property list read by ``BinaryPropertyList``, as `PropertyListSerialization` returns
    /// it: `String`, `Data`, `Date`, `NSNumber` (integers, reals, booleans), `[Any]` and `[String: Any]`. Sets and
    /// archive references are refused, and so is a list whose shared sub-objects would expand to more than
    /// `maximumObjects` values (a few hundred bytes can describe a tree of 2⁶⁴ nodes).
    ///
    /// For example:
    /// ```swift
    /// let metadata = try BinaryPropertyList.read(blob).foundationObject() as? [String: Any]
    /// ```
    func foundationObject(maximumObjects: Int = 100_000) throws(BinaryPropertyListError) -> Any {
        var budget = maximumObjects
        return try foundationObject(budget: &budget)
    }

    private func foundationObject(budget: inout Int) throws(BinaryPropertyListError) -> Any {
        budget -= 1
        guard budget >= 0 else { throw BinaryPropertyListError(description: "the property list expands to too many objects") }
        switch self {
        case .null: return NSNull()
        case .boolean(let value): return NSNumber(value: value)
        case .integer(let value): return NSNumber(value: value)
        case .unsignedInteger(let value): return NSNumber(value: value)
        case .real(let value): return NSNumber(value: value)
        case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .data(let bytes): return Data(bytes)
        case .string(let value): return value
        case .uid: throw BinaryPropertyListError(description: "an archive reference (UID) outside a keyed archive")
        case .set: throw BinaryPropertyListError(description: "a set, which property lists of this kind do not hold")
        case .array(let elements):
            var result: [Any] = []
            result.reserveCapacity(elements.count)
            for element in elements { result.append(try element.foundationObject(budget: &budget)) }
            return result
        case .dictionary(let entries):
            var result: [String: Any] = [:]
            result.reserveCapacity(entries.count)
            for (key, value) in entries { result[key] = try value.foundationObject(budget: &budget) }
            return result
        }
    }
}

extension PropertyListObject {
    /// The Foundation form of the binary or XML property list in `data`, read by OpenCoreData's own readers
    /// (``BinaryPropertyList``, ``XMLPropertyList``) instead of `PropertyListSerialization`, whose reader on Linux
    /// crashed on some malformed lists and leaks memory on malformed ones (found by fuzzing): for property lists that
    /// come from files. Anything else is refused.
    ///
    /// ```swift
    /// let metadata = try PropertyListObject.foundationPropertyList(from: blob) as? [String: Any]
    /// ```
    package static func foundationPropertyList<Bytes: DataProtocol>(from data: Bytes) throws(BinaryPropertyListError) -> Any {
        let data = Data(data)
        if data.starts(with: Array("bplist00".utf8)) { return try BinaryPropertyList.read(data).foundationObject() }
        let start = data.prefix(256).drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        guard start.starts(with: Array("<?xml".utf8)) || start.starts(with: Array("<!DOCTYPE plist".utf8)) || start.starts(with: Array("<plist".utf8)) else {
            throw BinaryPropertyListError(description: "neither a binary nor an XML property list")
        }
        return try XMLPropertyList.read(data).foundationObject()
    }
}
