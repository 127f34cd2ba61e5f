// Checks an NSKeyedArchiver archive before swift-corelibs-foundation decodes it.
//
// Linux's NSKeyedUnarchiver stops the process (fatalError, stack overflow) on archives whose object
// references point outside `$objects`, whose `$class` entries are not class descriptions, whose object
// graph has cycles, or whose classes are not among the allowed ones in secure mode. Value transformers
// read data from store files, which may be damaged or hostile, so every archive is read with the strict
// `BinaryPropertyList` reader and checked here first: structure, reachable classes (each must resolve
// to a class that adopts NSCoding — NSSecureCoding when secure coding is required), the allowed
// top-level classes (also applied, as Apple applies them, to the contents of arrays, sets and
// dictionaries), and the shape of the standard Foundation classes Apple writes.

import Foundation

/// Why a keyed archive was refused.
package struct KeyedArchiveError: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) { self.description = description }
}

/// A keyed archive whose structure has been checked: every object reference lies inside `$objects`,
/// every object dictionary names a class description, and `$top` holds only references.
///
/// ```swift
/// let archive = try KeyedArchive(data: data)
/// let plan = try archive.decodingPlan(rootKey: "root", allowedClasses: [NSArray.self, NSString.self])
/// ```
struct KeyedArchive {
    /// `$objects`: index 0 is the `$null` marker.
    let objects: [PropertyListObject]
    /// `$top`: the archive's top-level keys and the objects they refer to.
    let top: [String: Int]

    /// Objects referenced more deeply than this are refused (each level is a nested `init(coder:)` call).
    static let maximumGraphDepth = 100

    init(data: Data) throws(KeyedArchiveError) {
        let root: PropertyListObject
        do {
            root = try BinaryPropertyList.read(data)
        } catch {
            throw KeyedArchiveError(description: "not a binary property list: \(error)")
        }
        guard case .dictionary(let plist) = root,
              case .string("NSKeyedArchiver") = plist["$archiver"],
              case .integer(100_000) = plist["$version"],
              case .dictionary(let topEntries) = plist["$top"],
              case .array(let objects) = plist["$objects"],
              case .string("$null") = objects.first else {
            throw KeyedArchiveError(description: "not an NSKeyedArchiver archive")
        }
        var top: [String: Int] = [:]
        for (key, value) in topEntries {
            guard case .uid(let reference) = value, reference < UInt64(objects.count) else {
                throw KeyedArchiveError(description: "$top entry \(key) is not a valid reference")
            }
            top[key] = Int(reference)
        }
        for object in objects.dropFirst() {
            try Self.checkStructure(of: object, objectCount: objects.count, objects: objects)
        }
        self.objects = objects
        self.top = top
    }

    private static func checkStructure(of object: PropertyListObject, objectCount: Int,
                                       objects: [PropertyListObject]) throws(KeyedArchiveError) {
        switch object {
        case .string, .integer, .unsignedInteger, .real, .boolean, .data:
            return
        case .dictionary(let entries):
            if entries["$classname"] != nil {
                // A class description.
                guard case .string = entries["$classname"] else {
                    throw KeyedArchiveError(description: "bad $classname")
                }
                if let classes = entries["$classes"] {
                    guard case .array(let names) = classes, names.allSatisfy({ if case .string = $0 { true } else { false } }) else {
                        throw KeyedArchiveError(description: "bad $classes")
                    }
                }
                return
            }
            guard case .uid(let classReference) = entries["$class"], classReference < UInt64(objectCount),
                  case .dictionary(let description) = objects[Int(classReference)],
                  case .string = description["$classname"] else {
                throw KeyedArchiveError(description: "object without a valid $class")
            }
            for value in entries.values { try checkReferences(in: value, objectCount: objectCount) }
        default:
            throw KeyedArchiveError(description: "unexpected top-level object in $objects")
        }
    }

    private static func checkReferences(in value: PropertyListObject, objectCount: Int) throws(KeyedArchiveError) {
        switch value {
        case .uid(let reference):
            guard reference < UInt64(objectCount) else { throw KeyedArchiveError(description: "reference out of range") }
        case .array(let elements), .set(let elements):
            for element in elements { try checkReferences(in: element, objectCount: objectCount) }
        case .dictionary(let entries):
            for element in entries.values { try checkReferences(in: element, objectCount: objectCount) }
        default:
            return
        }
    }

    // MARK: - Classes

    /// The archived class name of object `index`, or the Foundation class of an inline value
    /// (strings are NSString, numbers and booleans NSNumber, data NSData); nil for `$null`.
    func archivedClassName(ofObject index: Int) -> String? {
        switch objects[index] {
        case .string(let value): return value == "$null" ? nil : "NSString"  // Foundation decodes "$null" as nil
        case .integer, .unsignedInteger, .real, .boolean: return "NSNumber"
        case .data: return "NSData"
        case .dictionary(let entries):
            guard case .uid(let classReference) = entries["$class"],
                  case .dictionary(let description) = objects[Int(classReference)],
                  case .string(let name) = description["$classname"] else { return nil }
            return name
        default: return nil
        }
    }

    /// The instance variables of object `index` when it is an object dictionary.
    func fields(ofObject index: Int) -> [String: PropertyListObject]? {
        guard case .dictionary(let entries) = objects[index], entries["$class"] != nil else { return nil }
        return entries
    }

    /// The objects that object `index` refers to (never its class description).
    func references(ofObject index: Int) -> [Int] {
        guard let fields = fields(ofObject: index) else { return [] }
        var result: [Int] = []
        func collect(_ value: PropertyListObject) {
            switch value {
            case .uid(let reference) where reference != 0: result.append(Int(reference))
            case .array(let elements), .set(let elements): elements.forEach(collect)
            case .dictionary(let entries): entries.values.forEach(collect)
            default: break
            }
        }
        for (key, value) in fields where key != "$class" { collect(value) }
        return result
    }
}

/// What decoding an archive needs after it passed the checks: the root object's index (0 when the
/// root is `nil`) and class-name mappings to register on the unarchiver.
struct KeyedArchiveDecodingPlan {
    var root: Int
    var classMappings: [String: AnyClass]
}

extension KeyedArchive {
    /// The standard collection classes whose contents Apple's secure decoding checks against the
    /// same allowed classes as the collection itself.
    static let arrayClassNames: Set<String> = ["NSArray", "NSMutableArray", "NSSet", "NSMutableSet",
                                               "NSOrderedSet", "NSMutableOrderedSet"]
    static let dictionaryClassNames: Set<String> = ["NSDictionary", "NSMutableDictionary"]

    /// Checks the object graph under `rootKey` and returns how to decode it.
    ///
    /// - Parameters:
    ///   - allowedClasses: the classes the root object (and the contents of standard collections)
    ///     must be kinds of; nil allows every class that adopts NSCoding.
    ///   - requiresSecureCoding: every reachable class must adopt NSSecureCoding and return true
    ///     from `supportsSecureCoding`.
    func decodingPlan(rootKey: String, allowedClasses: [AnyClass]?,
                      requiresSecureCoding: Bool) throws(KeyedArchiveError) -> KeyedArchiveDecodingPlan {
        guard let root = top[rootKey] else { throw KeyedArchiveError(description: "no \(rootKey) object") }
        var plan = KeyedArchiveDecodingPlan(root: root, classMappings: [:])
        guard root != 0 else { return plan }
        var resolved: [String: AnyClass] = [:]

        // Depth-first walk of every reachable object: resolve its class, check its shape, refuse cycles.
        var state: [Int: Bool] = [:]  // false: on the current path, true: finished
        var stack: [(index: Int, children: [Int], next: Int)] = []
        func enter(_ index: Int) throws(KeyedArchiveError) {
            guard stack.count < Self.maximumGraphDepth else { throw KeyedArchiveError(description: "object graph too deep") }
            guard let name = archivedClassName(ofObject: index) else {
                throw KeyedArchiveError(description: "object \(index) has no class")
            }
            if resolved[name] == nil {
                guard let (cls, needsMapping) = ArchiveClassResolver.resolve(name, candidates: allowedClasses ?? []) else {
                    throw KeyedArchiveError(description: "unknown class \(name)")
                }
                guard cls is NSCoding.Type else { throw KeyedArchiveError(description: "\(name) does not adopt NSCoding") }
                guard ArchiveClassResolver.isDecodableFoundationClass(cls) else {
                    throw KeyedArchiveError(description: "\(name) is a Foundation class whose Linux decoder is not checked")
                }
                if requiresSecureCoding {
                    guard let secure = cls as? NSSecureCoding.Type, secure.supportsSecureCoding else {
                        throw KeyedArchiveError(description: "\(name) does not support secure coding")
                    }
                }
                resolved[name] = cls
                if needsMapping { plan.classMappings[name] = cls }
            }
            try checkShape(ofObject: index, className: name)
            state[index] = false
            stack.append((index, references(ofObject: index), 0))
        }
        try enter(root)
        while let top = stack.last {
            if top.next < top.children.count {
                stack[stack.count - 1].next += 1
                let child = top.children[top.next]
                switch state[child] {
                case .some(false): throw KeyedArchiveError(description: "object graph has a cycle")
                case .some(true): continue
                case .none: try enter(child)
                }
            } else {
                state[top.index] = true
                stack.removeLast()
            }
        }

        if let allowedClasses {
            try checkAllowed(root, allowedClasses: allowedClasses, resolved: resolved)
        }
        return plan
    }

    /// Checks that object `index` is a kind of an allowed class; for standard collections, so are
    /// their elements, keys and values.
    private func checkAllowed(_ index: Int, allowedClasses: [AnyClass],
                              resolved: [String: AnyClass]) throws(KeyedArchiveError) {
        var pending = [index]
        var seen: Set<Int> = []
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            guard let name = archivedClassName(ofObject: next), let cls = resolved[name] else {
                throw KeyedArchiveError(description: "object \(next) has no class")
            }
            guard ArchiveClassResolver.isKind(cls, ofAnyOf: allowedClasses) else {
                throw KeyedArchiveError(description: "\(name) is not among the allowed classes")
            }
            if Self.arrayClassNames.contains(name) || Self.dictionaryClassNames.contains(name) {
                pending.append(contentsOf: references(ofObject: next))
            }
        }
    }

    /// The URL an archived NSURL object decodes to — its `NS.relative` string parsed against its `NS.base`
    /// URL — or nil when Foundation would fail to decode it (a failure it reports on standard error) or the
    /// result would not bridge to `URL`.
    private func url(ofObject index: Int, depth: Int) -> URL? {
        guard depth < Self.maximumGraphDepth, archivedClassName(ofObject: index) == "NSURL",
              let fields = fields(ofObject: index),
              case .uid(let relativeReference) = fields["NS.relative"], case .uid(let baseReference) = fields["NS.base"] else {
            return nil
        }
        let relative: String
        switch objects[Int(relativeReference)] {
        case .string(let string) where string != "$null": relative = string
        case .dictionary(let entries) where ["NSString", "NSMutableString"].contains(archivedClassName(ofObject: Int(relativeReference))):
            guard case .string(let string) = entries["NS.string"] else { return nil }
            relative = string
        default: return nil
        }
        var base: URL?
        if baseReference != 0 {
            guard let baseURL = url(ofObject: Int(baseReference), depth: depth + 1) else { return nil }
            base = baseURL
        }
        // Foundation builds an NSURL, which the caller bridges to URL; Linux stops the process when that bridge
        // fails (for "" for example), so both parsers must accept the string.
        guard NSURL(string: relative, relativeTo: base) != nil else { return nil }
        return URL(string: relative, relativeTo: base)
    }

    /// Checks the instance variables of the standard Foundation classes against the layout Apple writes,
    /// so that Foundation's `init(coder:)` never meets a layout it cannot handle.
    private func checkShape(ofObject index: Int, className: String) throws(KeyedArchiveError) {
        guard let fields = fields(ofObject: index) else { return }  // inline string, number or data
        func fail(_ reason: String) -> KeyedArchiveError {
            KeyedArchiveError(description: "\(className) object \(index): \(reason)")
        }
        func referenceList(_ key: String) throws(KeyedArchiveError) -> [Int] {
            guard case .array(let elements) = fields[key] else { throw fail("\(key) is missing") }
            var result: [Int] = []
            for element in elements {
                guard case .uid(let reference) = element, reference != 0 else { throw fail("\(key) holds a non-object") }
                result.append(Int(reference))
            }
            return result
        }
        switch className {
        case _ where Self.arrayClassNames.contains(className):
            _ = try referenceList("NS.objects")
        case _ where Self.dictionaryClassNames.contains(className):
            guard try referenceList("NS.keys").count == referenceList("NS.objects").count else {
                throw fail("key and value counts differ")
            }
        case "NSDate":
            switch fields["NS.time"] {
            case .real?, .integer?: break
            default: throw fail("NS.time is missing")
            }
        case "NSUUID":
            guard case .data(let bytes) = fields["NS.uuidbytes"], bytes.count == 16 else { throw fail("NS.uuidbytes is not 16 bytes") }
        case "NSURL":
            guard url(ofObject: index, depth: 0) != nil else { throw fail("not a valid URL") }
        case "NSString", "NSMutableString":
            guard case .string = fields["NS.string"] else { throw fail("NS.string is missing") }
        case "NSData", "NSMutableData":
            guard case .data = fields["NS.data"] else { throw fail("NS.data is missing") }
        case "NSNumber":
            throw fail("numbers are archived inline")
        default:
            return
        }
    }
}
