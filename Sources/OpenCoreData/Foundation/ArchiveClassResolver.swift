// How the class names written in keyed archives map to classes on Linux.
//
// Apple's NSKeyedArchiver writes Foundation classes by their Objective-C names ("NSArray",
// "NSMutableDictionary", …), which swift-corelibs-foundation resolves as they are. An app's own classes
// are written by their Objective-C name: "Content" for `@objc(Content) class Content`, or
// "ModuleName.Cover" for a Swift class without `@objc(…)`. On Linux there is no `@objc(…)` and the module
// usually has another name, so neither resolves by itself. Besides the mappings registered with
// `NSKeyedUnarchiver.setClass(_:forClassName:)`, a secure value transformer therefore matches a name
// against its allowed classes by the unqualified class name (`Cover` matches `MyApp.Cover`).

import Foundation

/// Resolves archived class names the way NSKeyedUnarchiver will, without ever asking Foundation to
/// resolve a name it would log about (mangled `_Tt…` names) or could not parse.
///
/// ```swift
/// let (cls, needsMapping) = ArchiveClassResolver.resolve("Content", candidates: [Content.self])!
/// ```
enum ArchiveClassResolver {
    /// Returns the class for `name`, and whether the unarchiver must be told the mapping (true when
    /// the class was found among `candidates` by its unqualified name).
    static func resolve(_ name: String, candidates: [AnyClass]) -> (AnyClass, Bool)? {
        if let mapped = NSKeyedUnarchiver.class(forClassName: name) { return (mapped, false) }
        guard isPlainClassName(name) else { return nil }
        if let found = NSClassFromString(name) { return (found, false) }
        let unqualified = name.split(separator: ".").last
        for candidate in candidates where String(reflecting: candidate).split(separator: ".").last == unqualified {
            return (candidate, true)
        }
        return nil
    }

    /// The class name Linux Foundation archives `cls` under (`"NSArray"`, `"MyApp.Content"`), or nil for a
    /// nested, private or generic class, for which Linux's `NSStringFromClass` stops the process.
    static func archivedName(of cls: AnyClass) -> String? {
        let components = String(reflecting: cls).split(separator: ".", omittingEmptySubsequences: false)
        guard components.count == 2, isPlainClassName(String(components[1])), isPlainClassName(String(components[0])) else {
            return nil
        }
        return NSStringFromClass(cls)
    }

    /// True for `Name` and `Module.Name` spellings made of ASCII identifier characters — the names Linux
    /// Foundation's `NSClassFromString` resolves without logging (it logs about mangled and nested names).
    static func isPlainClassName(_ name: String) -> Bool {
        guard (1...256).contains(name.utf8.count), !name.hasPrefix("_Tt") else { return false }
        let components = name.split(separator: ".", omittingEmptySubsequences: false)
        guard components.count <= 2 else { return false }
        return components.allSatisfy { component in
            guard let first = component.utf8.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
            return component.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// The Foundation classes whose archived layout `KeyedArchive` checks before swift-corelibs-foundation
    /// decodes them. Linux Foundation's decoders for its other classes (NSError, NSValue, NSAttributedString,
    /// …) stop the process on damaged input, so archives naming them are refused.
    static let decodableFoundationClassNames: Set<String> = [
        "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet",
        "NSDictionary", "NSMutableDictionary", "NSString", "NSMutableString", "NSNumber", "NSData",
        "NSMutableData", "NSDate", "NSUUID", "NSURL", "NSNull",
    ]

    /// False for a Foundation class outside `decodableFoundationClassNames`; true for every other class, an
    /// app's own included.
    static func isDecodableFoundationClass(_ cls: AnyClass) -> Bool {
        let prefix = "Foundation."
        let qualified = String(reflecting: cls)
        guard qualified.hasPrefix(prefix) else { return true }
        return decodableFoundationClassNames.contains(String(qualified.dropFirst(prefix.count)))
    }

    /// True when `cls` is one of `allowed` or a subclass of one (Apple's `isKindOfClass:` rule).
    static func isKind(_ cls: AnyClass, ofAnyOf allowed: [AnyClass]) -> Bool {
        allowed.contains { candidate in
            if cls == candidate { return true }
            guard let object = cls as? NSObject.Type else { return false }
            return object.isSubclass(of: candidate)
        }
    }
}
