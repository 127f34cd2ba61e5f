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
    /// The entries, in one struct: a class's stored properties are checked for exclusive access at run time on
    /// each mutation, so one property changed in place costs one check where three arrays cost three.
    private var table = EntryTable()

    /// Calls `body` with each entry in order: its key as a Swift string when it is one (`name`), the key as it was
    /// given, and its value.
    func forEachEntry(_ body: (_ name: String?, _ key: Any, _ value: Any) throws -> Void) rethrows {
        for index in table.values.indices {
            let name = table.names[index]
            try body(name, name.map { $0 as Any } ?? table.givenKey(at: index), table.values[index])
        }
    }

    /// Empties the dictionary for the handler's next row, keeping its storage and its keys' order as the template.
    /// Only for a dictionary nobody else holds: a handler that kept the last one still sees its entries.
    func prepareForNextRow() { table.prepareForNextRow() }

    override var count: Int { table.keys.count }

    override func object(forKey aKey: Any) -> Any? {
        table.position(of: aKey).map { table.values[$0] }
    }

    override func keyEnumerator() -> NSEnumerator {
        NSArray(array: table.keys.indices.map { index in table.names[index].map { NSString(string: $0) as Any } ?? table.givenKey(at: index) }).objectEnumerator()
    }

    override func setObject(_ anObject: Any, forKey aKey: AnyHashable) {
        table.set(anObject, forKey: aKey.base)
    }

    override func removeObject(forKey aKey: Any) {
        table.remove(aKey)
    }

    override func removeAllObjects() {
        table.removeAll()
    }
}

/// The entries of a ``BatchInsertDictionary``.
private struct EntryTable {
    /// The keys in the order they were first set, as given; ``names`` holds each as a Swift string when it is one
    /// (a `String` or an `NSString`), and ``values`` their values. Three arrays: a search compares names only.
    private(set) var keys: [AnyHashable] = []
    private(set) var names: [String?] = []
    private(set) var values: [Any] = []
    /// Positions by key (a name as a `String`), built once the dictionary is too large for a linear search.
    private var positions: [AnyHashable: Int]?
    private static let linearSearchLimit = 16
    /// The names of an earlier row's keys, in order (see ``prepareForNextRow()``), and whether the keys set so far
    /// are its first ones: a handler sets the same keys in the same order for every row, so a key that is the
    /// template's next one is new (the template's names are distinct) and is added without a search.
    private var template: [String?] = []
    private var followsTemplate = true

    /// A key that is not `Hashable` (a subscript accepts any value; Apple's bridges it to an object), kept by
    /// identity so that the insert can report it as the non-string key it is.
    private final class UnhashableKey: Hashable {
        let key: Any
        init(_ key: Any) { self.key = key }
        static func == (lhs: UnhashableKey, rhs: UnhashableKey) -> Bool { lhs === rhs }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    /// The key at `index` as it was given.
    func givenKey(at index: Int) -> Any {
        (keys[index].base as? UnhashableKey)?.key ?? keys[index].base
    }

    /// Empties the table; a row that did not follow the template becomes the template.
    mutating func prepareForNextRow() {
        if !followsTemplate { template = names }
        keys.removeAll(keepingCapacity: true)
        names.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        positions = nil
        followsTemplate = true
    }

    mutating func set(_ value: Any, forKey key: Any) {
        let name = ValueConversion.string(key)
        if followsTemplate, let name, keys.count < template.count, template[keys.count] == name {
            append(AnyHashable(name), name: name, value: value)
            return
        }
        if let position = position(of: name ?? key) {
            values[position] = value
            return
        }
        followsTemplate = false
        append(name.map(AnyHashable.init) ?? (key as? AnyHashable) ?? AnyHashable(UnhashableKey(key)), name: name, value: value)
    }

    private mutating func append(_ key: AnyHashable, name: String?, value: Any) {
        keys.append(key)
        names.append(name)
        values.append(value)
        if positions != nil {
            positions?[key] = keys.count - 1
        } else if keys.count > Self.linearSearchLimit {
            indexPositions()
        }
    }

    mutating func remove(_ key: Any) {
        guard let position = position(of: key) else { return }
        keys.remove(at: position)
        names.remove(at: position)
        values.remove(at: position)
        positions = nil
        followsTemplate = false
        if keys.count > Self.linearSearchLimit { indexPositions() }
    }

    mutating func removeAll() {
        keys.removeAll()
        names.removeAll()
        values.removeAll()
        positions = nil
        followsTemplate = false
    }

    private mutating func indexPositions() {
        positions = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
    }

    /// Where `key` is among the entries. String keys match whether given as `String` or `NSString` (also inside an
    /// `AnyHashable`, which the casts unwrap).
    func position(of key: Any) -> Int? {
        if let name = ValueConversion.string(key) {
            if let positions { return positions[AnyHashable(name)] }
            return names.firstIndex { $0 == name }
        }
        guard let key = key as? AnyHashable else { return nil }
        if let positions { return positions[key] }
        return keys.indices.first { names[$0] == nil && keys[$0] == key }
    }
}
