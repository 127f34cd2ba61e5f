/// The members of a realized to-many relationship: a set for membership, and the order for ordered
/// relationships.
struct RelationshipMembers {
    /// Whether the relationship is ordered.
    let isOrdered: Bool
    /// The members (membership, identity-hashed).
    private(set) var memberSet: Set<NSManagedObject>
    /// The members in order (ordered relationships only).
    private(set) var order: [NSManagedObject]
    /// The Swift set a `@Managed` property last returned for these members (a `Set<Mood>`), kept until they change: a
    /// property read again (`country.moods.count`) then takes no pass over the members, as reading Apple's bridged
    /// `NSSet` takes none. For an unordered relationship it shares `memberSet`'s storage, so a change lets go of it
    /// before changing the set (else the set would be copied).
    var propertySet: Any?

    init(ordered: Bool, members: [NSManagedObject] = []) {
        isOrdered = ordered
        var set = Set<NSManagedObject>(minimumCapacity: members.count)
        var order: [NSManagedObject] = []
        for member in members where set.insert(member).inserted {
            if ordered { order.append(member) }
        }
        self.memberSet = set
        self.order = order
    }

    var count: Int { memberSet.count }

    /// The members, in order for ordered relationships.
    var objects: [NSManagedObject] { isOrdered ? order : Array(memberSet) }

    func contains(_ object: NSManagedObject) -> Bool { memberSet.contains(object) }

    /// Adds `object` at the end (or `index`); returns whether it was added.
    @discardableResult
    mutating func insert(_ object: NSManagedObject, at index: Int? = nil) -> Bool {
        propertySet = nil   // first, as it may share the set's storage (a read makes it again cheaply)
        guard memberSet.insert(object).inserted else { return false }
        if isOrdered {
            if let index, index >= 0, index <= order.count { order.insert(object, at: index) } else { order.append(object) }
        }
        return true
    }

    /// Removes `object`; returns whether it was a member.
    @discardableResult
    mutating func remove(_ object: NSManagedObject) -> Bool {
        propertySet = nil   // first, as it may share the set's storage (a read makes it again cheaply)
        guard memberSet.remove(object) != nil else { return false }
        if isOrdered, let index = order.firstIndex(where: { $0 === object }) { order.remove(at: index) }
        return true
    }

    /// Moves an existing member to `index` (ordered relationships).
    mutating func move(_ object: NSManagedObject, to index: Int) {
        guard isOrdered, let from = order.firstIndex(where: { $0 === object }) else { return }
        propertySet = nil
        order.remove(at: from)
        order.insert(object, at: min(max(index, 0), order.count))
    }

    /// The position of `object` (ordered relationships).
    func index(of object: NSManagedObject) -> Int? {
        order.firstIndex { $0 === object }
    }
}

/// Initial to-many values for new objects.
enum RelationshipMembersFactory {
    static func empty(_ relationship: NSRelationshipDescription) -> NSManagedObject.ToManyValue {
        .members(RelationshipMembers(ordered: relationship.isOrdered))
    }
}
