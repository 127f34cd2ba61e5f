/// The values of one object as an `NSIncrementalStore` returns them from `newValuesForObject(with:with:)`:
/// attribute values by property name (as `value(forKey:)` would return them), to-one relationships as the
/// destination's `NSManagedObjectID` (or `NSNull`), and the row's version for optimistic locking.
///
/// For example:
/// ```swift
/// let node = NSIncrementalStoreNode(objectID: objectID, withValues: ["title": "Dune", "author": authorID], version: 1)
/// node.value(for: titleAttribute)   // "Dune"
/// ```
open class NSIncrementalStoreNode: NSObject {
    /// The object these values belong to.
    public let objectID: NSManagedObjectID
    private var values: [String: Any]
    private var _version: UInt64

    /// A node with the object's values (to-many relationships are not included: the store answers
    /// `newValue(forRelationship:forObjectWith:with:)` for them).
    public init(objectID: NSManagedObjectID, withValues values: [String: Any], version: UInt64) {
        self.objectID = objectID
        self.values = values
        self._version = version
        super.init()
    }

    /// Replaces the node's values and version.
    open func update(withValues values: [String: Any], version: UInt64) {
        self.values = values
        self._version = version
    }

    /// The version of the values (it changes whenever the stored object changes).
    open var version: UInt64 { _version }

    /// The value of a property; nil when the node has none (the property is then nil).
    open func value(for prop: NSPropertyDescription) -> Any? {
        values[prop.name]
    }
}
