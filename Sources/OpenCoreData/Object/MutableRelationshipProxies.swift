/// The mutable set `mutableSetValue(forKey:)` returns: a live view of a to-many relationship whose mutations
/// go through the object (tracked, undoable, inverses maintained).
final class ManagedMutableSet: NSMutableSet {
    private let owner: NSManagedObject
    private let key: String

    init(owner: NSManagedObject, key: String) {
        self.owner = owner
        self.key = key
        super.init(capacity: 0)
    }

    required init(arrayLiteral elements: Any...) {
        preconditionFailure("A relationship's mutable set is created by mutableSetValue(forKey:).")
    }

    required init(capacity numItems: Int) {
        preconditionFailure("A relationship's mutable set is created by mutableSetValue(forKey:).")
    }

    required convenience init?(coder: NSCoder) {
        preconditionFailure("A relationship's mutable set cannot be decoded.")
    }

    private var members: [NSManagedObject] {
        ((owner.value(forKey: key) as? NSSet)?.allObjects ?? []).compactMap { $0 as? NSManagedObject }
    }

    override var count: Int { members.count }
    override func member(_ object: Any) -> Any? {
        guard let object = object as? NSManagedObject else { return nil }
        return members.contains(object) ? object : nil
    }
    override func objectEnumerator() -> NSEnumerator { NSArray(array: members).objectEnumerator() }
    override var allObjects: [Any] { members }
    override func contains(_ anObject: Any) -> Bool { member(anObject) != nil }

    override func add(_ object: Any) {
        guard let object = object as? NSManagedObject else {
            preconditionFailure("Only managed objects can be added to the relationship '\(key)'.")
        }
        owner.addMember(object, toRelationship: key)
    }
    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeMember(object, fromRelationship: key)
    }
    override func removeAllObjects() { for object in members { owner.removeMember(object, fromRelationship: key) } }
    override func addObjects(from array: [Any]) { for object in array { add(object) } }
    override func union(_ otherSet: Set<AnyHashable>) { for object in otherSet { add(object.base) } }
    override func minus(_ otherSet: Set<AnyHashable>) { for object in otherSet { remove(object.base) } }
    override func intersect(_ otherSet: Set<AnyHashable>) {
        for object in members where !otherSet.contains(AnyHashable(object)) { owner.removeMember(object, fromRelationship: key) }
    }
    override func setSet(_ otherSet: Set<AnyHashable>) {
        owner.setValue(NSSet(array: otherSet.map(\.base)), forKey: key)
    }
}

/// The mutable ordered set `mutableOrderedSetValue(forKey:)` returns: a live view of an ordered to-many
/// relationship whose mutations go through the object.
final class ManagedMutableOrderedSet: NSMutableOrderedSet {
    private let owner: NSManagedObject
    private let key: String

    init(owner: NSManagedObject, key: String) {
        self.owner = owner
        self.key = key
        super.init(capacity: 0)
    }

    required init(arrayLiteral elements: Any...) {
        preconditionFailure("A relationship's mutable ordered set is created by mutableOrderedSetValue(forKey:).")
    }

    required convenience init?(coder: NSCoder) {
        preconditionFailure("A relationship's mutable ordered set cannot be decoded.")
    }

    private var members: [NSManagedObject] {
        ((owner.value(forKey: key) as? NSOrderedSet)?.array ?? []).compactMap { $0 as? NSManagedObject }
    }

    override var count: Int { members.count }
    override func object(at idx: Int) -> Any { members[idx] }
    override func index(of object: Any) -> Int {
        guard let object = object as? NSManagedObject else { return NSNotFound }
        return members.firstIndex { $0 === object } ?? NSNotFound
    }
    override func contains(_ object: Any) -> Bool { index(of: object) != NSNotFound }

    override func insert(_ object: Any, at idx: Int) {
        guard let object = object as? NSManagedObject else {
            preconditionFailure("Only managed objects can be added to the relationship '\(key)'.")
        }
        owner.addMember(object, toRelationship: key, at: idx)
    }
    override func removeObject(at idx: Int) {
        owner.removeMember(members[idx], fromRelationship: key)
    }
    override func replaceObject(at idx: Int, with object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner._replaceManagedObject(at: idx, with: object, inRelationship: key)
    }
    override func add(_ object: Any) { insert(object, at: members.count) }
    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeMember(object, fromRelationship: key)
    }
    override func removeAllObjects() { for object in members { owner.removeMember(object, fromRelationship: key) } }
    override func addObjects(from array: [Any]) { for object in array { add(object) } }

    // Whole-list operations: applied to a copy, then set as the relationship's new value (one change, tracked,
    // undoable, inverses maintained). Foundation implements them on its own storage, which this view has not.

    /// Applies `edit` to a copy of the members and makes the result the relationship's value.
    private func replaceAll(_ edit: (NSMutableOrderedSet) -> Void) {
        let copy = NSMutableOrderedSet(array: members)
        edit(copy)
        owner.setValue(NSOrderedSet(orderedSet: copy), forKey: key)
    }

    override func exchangeObject(at idx1: Int, withObjectAt idx2: Int) { replaceAll { $0.exchangeObject(at: idx1, withObjectAt: idx2) } }
    override func moveObjects(at indexes: IndexSet, to idx: Int) { replaceAll { $0.moveObjects(at: indexes, to: idx) } }
    override func insert(_ objects: [Any], at indexes: IndexSet) { replaceAll { $0.insert(objects, at: indexes) } }
    override func setObject(_ obj: Any, at idx: Int) { replaceAll { $0.setObject(obj, at: idx) } }
    override func replaceObjects(in range: NSRange, with objects: UnsafePointer<AnyObject>?, count: Int) {
        replaceAll { $0.replaceObjects(in: range, with: objects, count: count) }
    }
    override func replaceObjects(at indexes: IndexSet, with objects: [Any]) { replaceAll { $0.replaceObjects(at: indexes, with: objects) } }
    override func removeObjects(in range: NSRange) { replaceAll { $0.removeObjects(in: range) } }
    override func removeObjects(at indexes: IndexSet) { replaceAll { $0.removeObjects(at: indexes) } }
    override func removeObjects(in array: [Any]) { replaceAll { $0.removeObjects(in: array) } }
    override func intersect(_ other: NSOrderedSet) { replaceAll { $0.intersect(other) } }
    override func minus(_ other: NSOrderedSet) { replaceAll { $0.minus(other) } }
    override func union(_ other: NSOrderedSet) { replaceAll { $0.union(other) } }
    override func intersectSet(_ other: Set<AnyHashable>) { replaceAll { $0.intersectSet(other) } }
    override func minusSet(_ other: Set<AnyHashable>) { replaceAll { $0.minusSet(other) } }
    override func unionSet(_ other: Set<AnyHashable>) { replaceAll { $0.unionSet(other) } }
    override func sort(comparator cmptr: (Any, Any) -> ComparisonResult) { replaceAll { $0.sort(comparator: cmptr) } }
    override func sort(options opts: NSSortOptions = [], usingComparator cmptr: (Any, Any) -> ComparisonResult) {
        replaceAll { $0.sort(options: opts, usingComparator: cmptr) }
    }
    override func sortRange(_ range: NSRange, options opts: NSSortOptions = [], usingComparator cmptr: (Any, Any) -> ComparisonResult) {
        replaceAll { $0.sortRange(range, options: opts, usingComparator: cmptr) }
    }
}

extension NSManagedObject {
    /// A mutable set through which a to-many relationship can be changed; changes are tracked, undoable and
    /// update the inverse relationship.
    ///
    /// For example:
    /// ```swift
    /// country.mutableSetValue(forKey: "moods").add(mood)
    /// ```
    public func mutableSetValue(forKey key: String) -> NSMutableSet {
        guard case .toMany(_, let relationship) = slot(for: key), !relationship.isOrdered else {
            preconditionFailure("'\(key)' is not an unordered to-many relationship of entity \(entity.name ?? "?"); use mutableOrderedSetValue(forKey:) for ordered ones.")
        }
        return ManagedMutableSet(owner: self, key: key)
    }

    /// A mutable ordered set through which an ordered to-many relationship can be changed.
    ///
    /// For example:
    /// ```swift
    /// playlist.mutableOrderedSetValue(forKey: "songs").insert(song, at: 0)
    /// ```
    public func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet {
        guard case .toMany(_, let relationship) = slot(for: key), relationship.isOrdered else {
            preconditionFailure("'\(key)' is not an ordered to-many relationship of entity \(entity.name ?? "?"); use mutableSetValue(forKey:) for unordered ones.")
        }
        return ManagedMutableOrderedSet(owner: self, key: key)
    }
}
