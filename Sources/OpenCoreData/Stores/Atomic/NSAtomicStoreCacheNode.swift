/// One object of an `NSAtomicStore`, as the store keeps it in memory: its object ID and its property values by
/// name. Attributes hold the values `value(forKey:)` of a managed object returns; a to-one relationship holds the
/// destination's cache node (or nothing); a to-many relationship holds an `NSSet` of cache nodes (an `NSOrderedSet`
/// for an ordered relationship).
///
/// For example:
/// ```swift
/// let node = NSAtomicStoreCacheNode(objectID: objectID)
/// node.setValue("Dune", forKey: "title")
/// node.setValue(authorNode, forKey: "author")
/// node.value(forKey: "title")   // "Dune"
/// ```
open class NSAtomicStoreCacheNode: NSObject, @unchecked Sendable {
    // @unchecked Sendable: a node is read and written only under its store's coordinator lock, like all store state.

    /// The object this node holds the values of.
    public let objectID: NSManagedObjectID

    /// The property values by name (created on the first `setValue(_:forKey:)` when nil).
    open var propertyCache: NSMutableDictionary?

    /// A node without values.
    public init(objectID moid: NSManagedObjectID) {
        objectID = moid
        super.init()
    }

    /// The value of a property (nil when the node has none).
    open func value(forKey key: String) -> Any? {
        guard let value = propertyCache?[key], !ValueConversion.isNull(value) else { return nil }
        return value
    }

    /// Sets (or, with nil, removes) the value of a property.
    open func setValue(_ value: Any?, forKey key: String) {
        let cache = propertyCache ?? NSMutableDictionary()
        propertyCache = cache
        if let value { cache[key] = value } else { cache.removeObject(forKey: key) }
    }

    /// Nodes are equal when they are the node of the same object.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSAtomicStoreCacheNode else { return false }
        return other === self || other.objectID == objectID
    }

    open override var hash: Int { objectID.hash }

    open override var description: String { "<NSAtomicStoreCacheNode \(objectID.uriRepresentation().absoluteString)>" }
}
