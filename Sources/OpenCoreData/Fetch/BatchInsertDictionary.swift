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
    /// The keys in the order they were first set, as given; ``names`` holds each as a Swift string when it is one
    /// (a `String` or an `NSString`), and ``values`` their values. Three arrays: a search compares names only.
    private(set) var keys: [AnyHashable] = []
    private(set) var names: [String?] = []
    private(set) var values: [Any] = []
    /// Positions by key (a name as a `String`), built once the dictionary is too large for a linear search.
    private var positions: [AnyHashable: Int]?
    private static let linearSearchLimit = 16

    /// The entries as (key, value) pairs, a key that is a string as a Swift `String`.
    var entries: some Sequence<(key: Any, value: Any)> {
        zip(names.indices, values).lazy.map { [keys, names] index, value in (key: names[index] ?? keys[index].base, value: value) }
    }

    override var count: Int { keys.count }

    override func object(forKey aKey: Any) -> Any? {
        position(of: aKey).map { values[$0] }
    }

    override func keyEnumerator() -> NSEnumerator {
        NSArray(array: zip(keys, names).map { key, name in name.map { NSString(string: $0) as Any } ?? key.base }).objectEnumerator()
    }

    override func setObject(_ anObject: Any, forKey aKey: AnyHashable) {
        if let position = position(of: aKey.base) {
            values[position] = anObject
            return
        }
        let name = ValueConversion.string(aKey.base)
        let key = name.map(AnyHashable.init) ?? aKey
        keys.append(key)
        names.append(name)
        values.append(anObject)
        if positions != nil {
            positions?[key] = keys.count - 1
        } else if keys.count > Self.linearSearchLimit {
            indexPositions()
        }
    }

    override func removeObject(forKey aKey: Any) {
        guard let position = position(of: aKey) else { return }
        keys.remove(at: position)
        names.remove(at: position)
        values.remove(at: position)
        positions = nil
        if keys.count > Self.linearSearchLimit { indexPositions() }
    }

    override func removeAllObjects() {
        keys.removeAll()
        names.removeAll()
        values.removeAll()
        positions = nil
    }

    private func indexPositions() {
        positions = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
    }

    /// Where `key` is among the entries. String keys match whether given as `String` or `NSString` (also inside an
    /// `AnyHashable`, which the casts unwrap).
    private func position(of key: Any) -> Int? {
        if let name = ValueConversion.string(key) {
            if let positions { return positions[AnyHashable(name)] }
            return names.firstIndex { $0 == name }
        }
        guard let key = key as? AnyHashable else { return nil }
        if let positions { return positions[key] }
        return keys.indices.first { names[$0] == nil && keys[$0] == key }
    }
}
