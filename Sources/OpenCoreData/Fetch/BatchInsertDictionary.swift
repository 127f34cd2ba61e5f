import Foundation

/// The `NSMutableDictionary` a batch insert's `dictionaryHandler` fills: a complete mutable dictionary that keeps
/// its entries as they were set, in order, without bridging them.
///
/// Foundation's own `NSMutableDictionary` on Linux turns every value into an object when it is set (an `Int64`
/// into an `NSNumber`, a `Data` into an `NSData`) and every key into an `NSString` it hashes, and the insert would
/// then convert each back: for 100,000 rows of six values that was most of the request's time. Apple's
/// `NSMutableDictionary` is a class cluster whose instances are private subclasses too; a handler sees an
/// `NSMutableDictionary` and may use all of it (subscripts, `setObject(_:forKey:)`, `removeObject(forKey:)`,
/// `count`, reading values back, enumerating, copying).
///
/// ```swift
/// NSBatchInsertRequest(entityName: "Item") { (dictionary: NSMutableDictionary) in
///     dictionary["name"] = "a"      // kept as the String "a" until the insert reads it
///     return true
/// }
/// ```
final class BatchInsertDictionary: NSMutableDictionary {
    /// The entries in the order their keys were first set; `name` is the key as a Swift string when it is one.
    private(set) var entries: [(key: AnyHashable, name: String?, value: Any)] = []
    /// Positions by key, built once the dictionary is too large for a linear search.
    private var positions: [AnyHashable: Int]?
    private static let linearSearchLimit = 16

    override var count: Int { entries.count }

    override func object(forKey aKey: Any) -> Any? {
        position(of: aKey).map { entries[$0].value }
    }

    override func keyEnumerator() -> NSEnumerator {
        NSArray(array: entries.map { $0.name.map { NSString(string: $0) as Any } ?? $0.key.base }).objectEnumerator()
    }

    override func setObject(_ anObject: Any, forKey aKey: AnyHashable) {
        if let position = position(of: aKey.base) {
            entries[position].value = anObject
            return
        }
        let name = Self.name(of: aKey.base)
        let key = name.map(AnyHashable.init) ?? aKey
        entries.append((key, name, anObject))
        if positions != nil {
            positions?[key] = entries.count - 1
        } else if entries.count > Self.linearSearchLimit {
            positions = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.key, $0) })
        }
    }

    override func removeObject(forKey aKey: Any) {
        guard let position = position(of: aKey) else { return }
        entries.remove(at: position)
        positions = entries.count > Self.linearSearchLimit ? Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.key, $0) }) : nil
    }

    override func removeAllObjects() {
        entries.removeAll()
        positions = nil
    }

    /// Where `key` is among the entries. String keys match whether given as `String` or `NSString` (also inside an
    /// `AnyHashable`, which the casts unwrap).
    private func position(of key: Any) -> Int? {
        if let name = Self.name(of: key) {
            if let positions { return positions[AnyHashable(name)] }
            return entries.firstIndex { $0.name == name }
        }
        guard let key = key as? AnyHashable else { return nil }
        if let positions { return positions[key] }
        return entries.firstIndex { $0.name == nil && $0.key == key }
    }

    /// `key` as a Swift string, when it is a `String` or an `NSString`.
    private static func name(of key: Any) -> String? {
        if let string = key as? String { return string }
        return ValueConversion.object(key, as: NSString.self).map { $0 as String }
    }
}
