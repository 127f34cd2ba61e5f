/// A property value in the form stores keep it: what a row cache holds, what a snapshot carries between a
/// store and a context, and what managed objects hold for their attributes (so that a realized object shares
/// its values with the row cache until it is changed).
///
/// Numbers keep Core Data's storage classes (integers and booleans as `integer`, floating point as `real`);
/// transformable values are stored as the `Data` their value transformer produced.
enum StoredValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case decimal(Decimal)
    case text(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A row as a store delivers it: the values of an object's attributes and to-one relationships, in the order
/// of its entity's layout, and the row's version (`Z_OPT`), used for optimistic locking.
struct ObjectSnapshot: Sendable {
    /// Attribute values by the layout's attribute slot (transient attributes are `.null`).
    var attributes: [StoredValue]
    /// To-one destinations by the layout's to-one slot.
    var toOne: [NSManagedObjectID?]
    /// The row version; 0 for an object never saved.
    var version: Int64

    /// Moves the snapshot out of `slot` (an array element), leaving an empty one (empty arrays allocate nothing):
    /// the row's arrays change hands without a retain and a release.
    static func take(_ slot: inout ObjectSnapshot) -> ObjectSnapshot {
        var taken = ObjectSnapshot(attributes: [], toOne: [], version: 0)
        swap(&taken, &slot)
        return taken
    }

    /// Whether `other` is a copy of this snapshot (the same value arrays, not merely equal ones).
    func sharesValues(with other: ObjectSnapshot) -> Bool {
        version == other.version && Self.sameStorage(attributes, other.attributes) && Self.sameStorage(toOne, other.toOne)
    }

    private static func sameStorage<Element>(_ a: [Element], _ b: [Element]) -> Bool {
        a.count == b.count && (a.isEmpty || a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } })
    }
}
