// Archiving and unarchiving for the value transformers, through swift-corelibs-foundation's
// NSKeyedArchiver/NSKeyedUnarchiver but never into the paths where those stop the process:
// archives are checked by `KeyedArchive` before decoding, and values are checked for NSCoding /
// NSSecureCoding adoption before encoding.

import Foundation

/// Keyed archiving that fails with nil instead of stopping the process.
///
/// ```swift
/// let data = KeyedArchiving.archivedData(withRootObject: ["a", "b"], requiresSecureCoding: true)!
/// let array = KeyedArchiving.unarchivedRootObject(from: data, allowedClasses: [NSArray.self, NSString.self],
///                                                 requiresSecureCoding: true) as? [String]
/// ```
enum KeyedArchiving {
    /// Decodes the object under `rootKey` (`"root"` unless the archive was written with another top-level key)
    /// of an NSKeyedArchiver archive.
    ///
    /// Returns nil, without logging, for anything that is not a well-formed binary keyed archive, whose
    /// classes do not resolve, whose root object (or the contents of a standard collection) is not a kind
    /// of `allowedClasses`, or whose Foundation objects would fail to decode. (A failure reported by an app
    /// class's own `init(coder:)` is logged by Linux Foundation.)
    static func unarchivedRootObject(from data: Data, rootKey: String = NSKeyedArchiveRootObjectKey,
                                     allowedClasses: [AnyClass]?, requiresSecureCoding: Bool) -> Any? {
        let plan: KeyedArchiveDecodingPlan
        do {
            let archive = try KeyedArchive(data: data)
            plan = try archive.decodingPlan(rootKey: rootKey, allowedClasses: allowedClasses,
                                            requiresSecureCoding: requiresSecureCoding)
        } catch {
            return nil
        }
        guard plan.root != 0, let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        // The allowed classes and secure-coding adoption were checked above. Foundation's own secure mode is
        // left off: on Linux it stops the process (fatalError) when a class does not match, where Apple's
        // reports an error.
        unarchiver.requiresSecureCoding = false
        for mapping in plan.classMappings {
            let cls: AnyClass = mapping.value
            unarchiver.setClass(cls, forClassName: mapping.key)
        }
        let object = unarchiver.decodeObject(forKey: rootKey)
        unarchiver.finishDecoding()
        guard unarchiver.error == nil else { return nil }
        return object
    }

    /// Encodes `object` as a binary keyed archive with its root under `root`, as Apple's
    /// `archivedData(withRootObject:requiringSecureCoding:)` does.
    ///
    /// Returns nil when the object, or anything inside a standard collection, does not adopt NSCoding
    /// (NSSecureCoding with `supportsSecureCoding` when `requiresSecureCoding`) or is of a nested, private or
    /// generic class (which Linux Foundation cannot name in an archive), and when the archive would not read
    /// back (an object graph with a cycle, or deeper than `KeyedArchive.maximumGraphDepth`). Swift values that
    /// bridge to Foundation classes (String, numbers, Bool, Data, Date, URL, UUID, arrays, sets, dictionaries)
    /// qualify.
    static func archivedData(withRootObject object: Any, requiresSecureCoding: Bool) -> Data? {
        guard isArchivable(object, requiresSecureCoding: requiresSecureCoding, depth: 0),
              let data = try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: requiresSecureCoding)
        else { return nil }
        // What is written must read back: an app object graph with a cycle, or deeper than
        // `KeyedArchive.maximumGraphDepth`, would be refused when read, so it is refused now.
        guard let archive = try? KeyedArchive(data: data),
              (try? archive.decodingPlan(rootKey: NSKeyedArchiveRootObjectKey, allowedClasses: nil,
                                         requiresSecureCoding: requiresSecureCoding)) != nil else { return nil }
        return data
    }

    /// The Foundation object a value is archived as (a Swift `[String]` is an `NSArray`, and so on).
    static func bridgedObject(_ value: Any) -> AnyObject {
        value as AnyObject
    }

    private static func isArchivable(_ value: Any, requiresSecureCoding: Bool, depth: Int) -> Bool {
        guard depth < KeyedArchive.maximumGraphDepth else { return false }
        func all(_ elements: some Sequence<Any>) -> Bool {
            elements.allSatisfy { isArchivable($0, requiresSecureCoding: requiresSecureCoding, depth: depth + 1) }
        }
        let object = bridgedObject(value)
        switch object {
        case let array as NSArray: return all(array)
        case let set as NSSet: return all(set)
        case let set as NSOrderedSet: return all(set)
        case let dictionary as NSDictionary:
            return all(dictionary.allKeys) && all(dictionary.allValues)
        default:
            let cls: AnyClass = type(of: object)
            guard cls is NSCoding.Type, ArchiveClassResolver.archivedName(of: cls) != nil else { return false }
            guard requiresSecureCoding else { return true }
            guard let secure = cls as? NSSecureCoding.Type else { return false }
            return secure.supportsSecureCoding
        }
    }
}

