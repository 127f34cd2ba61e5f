import Foundation

/// Supplies the key-value coding names of a type's Swift key paths.
///
/// Swift key paths carry no property names on Linux (a computed property prints as `<computed 0x… (Type)>`), so
/// ``NSSortDescriptor/init(keyPath:ascending:)``, ``NSExpression/init(forKeyPath:)-(KeyPath<Root,Value>)`` and the
/// `#Predicate` conversion ask the key path's root type for the name:
///
/// ```swift
/// struct Book: KeyPathNaming {
///     var title: String
///     var pages: Int
///     static func keyPathString(for keyPath: AnyKeyPath) -> String? {
///         switch keyPath {
///         case \Book.title: return "title"
///         case \Book.pages: return "pages"
///         default: return nil
///         }
///     }
/// }
/// NSSortDescriptor(keyPath: \Book.title, ascending: true).key // "title"
/// ```
///
/// A multi-component key path (`\Author.book.title`) is named by the root type directly, or — when the root type
/// adopts ``KeyPathComponentNaming`` — component by component: each of the root's listed key paths is appended with
/// the next type's listed key paths (`AnyKeyPath.appending(path:)`) until one compares `==` to the key path asked for.
/// As a last resort a key path made only of stored properties is named from its description (`\Book.title`), which
/// works only while the binary keeps its reflection metadata.
public protocol KeyPathNaming {
    /// The key-value coding name (`"title"`, or a dotted path) of `keyPath`, or `nil` if this type does not name it.
    ///
    /// ```swift
    /// Book.keyPathString(for: \Book.title) // "title"
    /// ```
    static func keyPathString(for keyPath: AnyKeyPath) -> String?
}

/// A ``KeyPathNaming`` type that also lists the key paths it names, so that multi-component key paths through it
/// can be named one component at a time.
///
/// ```swift
/// struct Author: KeyPathComponentNaming {
///     var book: Book
///     static var namedKeyPaths: [AnyKeyPath] { [\Author.book] }
///     static func keyPathString(for keyPath: AnyKeyPath) -> String? {
///         keyPath == \Author.book ? "book" : nil
///     }
/// }
/// NSSortDescriptor(keyPath: \Author.book.title, ascending: true).key // "book.title" (with Book listing \Book.title)
/// ```
public protocol KeyPathComponentNaming: KeyPathNaming {
    /// The single-component key paths that ``KeyPathNaming/keyPathString(for:)`` names.
    static var namedKeyPaths: [AnyKeyPath] { get }
}

/// Resolves Swift key paths to key-value coding strings (see ``KeyPathNaming``).
enum KeyPathNames {
    /// The name of `keyPath`, or `nil` if neither its root type nor its description says.
    static func string(for keyPath: AnyKeyPath) -> String? {
        let root = type(of: keyPath).rootType
        if let naming = root as? any KeyPathNaming.Type, let name = naming.keyPathString(for: keyPath) {
            return name
        }
        if let listing = root as? any KeyPathComponentNaming.Type, let name = search(keyPath, from: listing, depth: 0) {
            return name
        }
        return fromDescription(keyPath)
    }

    /// Appends listed components until the key path is found (depth-limited).
    private static func search(_ target: AnyKeyPath, from type: any KeyPathComponentNaming.Type, depth: Int) -> String? {
        guard depth < 6 else { return nil }
        for candidate in type.namedKeyPaths {
            guard let name = type.keyPathString(for: candidate) else { continue }
            if candidate == target { return name }
            let valueType = Swift.type(of: candidate).valueType
            guard let next = valueType as? any KeyPathComponentNaming.Type else { continue }
            if let rest = searchSuffix(target, prefix: candidate, from: next, depth: depth + 1) {
                return name + "." + rest
            }
        }
        return nil
    }

    private static func searchSuffix(_ target: AnyKeyPath, prefix: AnyKeyPath, from type: any KeyPathComponentNaming.Type, depth: Int) -> String? {
        guard depth < 6 else { return nil }
        for candidate in type.namedKeyPaths {
            guard let name = type.keyPathString(for: candidate), let joined = prefix.appending(path: candidate) else { continue }
            if joined == target { return name }
            let valueType = Swift.type(of: candidate).valueType
            guard let next = valueType as? any KeyPathComponentNaming.Type else { continue }
            if let rest = searchSuffix(target, prefix: joined, from: next, depth: depth + 1) {
                return name + "." + rest
            }
        }
        return nil
    }

    /// `\Type.a.b` → `"a.b"` when every component is a stored property with a printed name.
    static func fromDescription(_ keyPath: AnyKeyPath) -> String? {
        let text = "\(keyPath)"
        guard text.hasPrefix("\\"), !text.contains("<"), !text.contains("?"), !text.contains("!"),
              !text.contains("["), !text.contains("(") else { return nil }
        let rootName = "\(type(of: keyPath).rootType)"
        guard text.hasPrefix("\\" + rootName + ".") else { return nil }
        let path = String(text.dropFirst(rootName.count + 2))
        let components = path.split(separator: ".", omittingEmptySubsequences: false)
        guard !components.isEmpty, components.allSatisfy({ PredicateLexer.isIdentifier(String($0)) }) else { return nil }
        return path
    }
}
