/// How a fetch index element is collated.
public enum NSFetchIndexElementType: UInt, Sendable, Hashable {
    /// An ordinary B-tree index element.
    case binary = 0
    /// An R-tree element (for spatial queries over two numeric properties).
    case rTree = 1
}

/// A named index over one or more properties of an entity (the model editor's "Fetch Index").
///
/// For example:
/// ```swift
/// let byUUID = NSFetchIndexDescription(name: "byUUID", elements: [
///     NSFetchIndexElementDescription(property: uuidAttribute, collationType: .binary)
/// ])
/// entity.indexes = [byUUID]
/// ```
open class NSFetchIndexDescription: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: mutable only until its model is frozen (checked on every setter), read-only after.

    weak var owningEntity: NSEntityDescription?
    var _name: String
    var _elements: [NSFetchIndexElementDescription]
    /// The partial-index predicate in format syntax, if any.
    var _partialIndexPredicateFormat: String?

    /// Creates an index with a name and its elements.
    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        _name = name
        _elements = elements ?? []
        super.init()
        for element in _elements { element.owningIndex = self }
    }

    private func willMutate(_ what: String) {
        checkModelEditable(owningEntity?.owningModel, "set \(what) of fetch index '\(_name)'")
    }

    /// The entity the index belongs to.
    public var entity: NSEntityDescription? { owningEntity }

    /// The index's name; the SQLite store names the SQL index `Z_<Entity>_<name>`.
    public var name: String {
        get { _name }
        set { willMutate("name"); _name = newValue }
    }

    /// The indexed properties, in order.
    public var elements: [NSFetchIndexElementDescription] {
        get { _elements }
        set {
            willMutate("elements")
            _elements = newValue
            for element in newValue { element.owningIndex = self }
        }
    }

    /// The predicate (in format syntax) that limits the index to some rows, if any.
    var partialIndexPredicateFormat: String? {
        get { _partialIndexPredicateFormat }
        set { willMutate("partialIndexPredicate"); _partialIndexPredicateFormat = newValue }
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchIndexDescription(name: _name, elements: _elements.map { $0.copy() as! NSFetchIndexElementDescription })
        copy._partialIndexPredicateFormat = _partialIndexPredicateFormat
        return copy
    }

    /// Decodes an index archived with `encode(with:)`: its name, elements and partial-index predicate, attached to
    /// no entity; nil when the coder holds none (NSFetchIndexDescription+Coding.swift).
    ///
    /// ```swift
    /// let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    /// unarchiver.requiresSecureCoding = false
    /// let index = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSFetchIndexDescription
    /// ```
    public required convenience init?(coder: NSCoder) {
        guard let archived = ArchivedFetchIndex(coder: coder) else { return nil }
        self.init(name: archived.name, elements: archived.elements)
        _partialIndexPredicateFormat = archived.partialIndexPredicateFormat
    }
}

/// One property of a fetch index, with its collation and order.
///
/// For example:
/// ```swift
/// let element = NSFetchIndexElementDescription(property: dateAttribute, collationType: .binary)
/// element.isAscending = false
/// ```
open class NSFetchIndexElementDescription: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: mutable only until its model is frozen (checked on every setter), read-only after.

    weak var owningIndex: NSFetchIndexDescription?
    weak var _property: NSPropertyDescription?
    var _propertyName: String?
    var _collationType: NSFetchIndexElementType
    var _isAscending = true

    /// Creates an element for a property of the index's entity.
    public init(property: NSPropertyDescription, collationType: NSFetchIndexElementType) {
        _property = property
        _propertyName = property.name
        _collationType = collationType
        super.init()
    }

    /// Creates an element that names its property (resolved against the index's entity).
    init(propertyName: String, collationType: NSFetchIndexElementType) {
        _propertyName = propertyName
        _collationType = collationType
        super.init()
    }

    private func willMutate(_ what: String) {
        checkModelEditable(owningIndex?.owningEntity?.owningModel, "set \(what) of a fetch index element")
    }

    /// The index this element belongs to.
    public var indexDescription: NSFetchIndexDescription? { owningIndex }

    /// The indexed property.
    public var property: NSPropertyDescription? {
        _property ?? _propertyName.flatMap { owningIndex?.owningEntity?.propertiesByName[$0] }
    }

    /// The indexed property's name.
    public var propertyName: String? { _property?.name ?? _propertyName }

    /// Binary (B-tree) or R-tree.
    public var collationType: NSFetchIndexElementType {
        get { _collationType }
        set { willMutate("collationType"); _collationType = newValue }
    }

    /// Whether the element sorts ascending. Defaults to `true`.
    public var isAscending: Bool {
        get { _isAscending }
        set { willMutate("isAscending"); _isAscending = newValue }
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchIndexElementDescription(propertyName: propertyName ?? "", collationType: _collationType)
        copy._isAscending = _isAscending
        return copy
    }

    /// Decodes an element archived with `encode(with:)`: its property's name, collation type and order, attached
    /// to no index (its `property` resolves by name once its index belongs to an entity); nil when the coder holds
    /// none (NSFetchIndexDescription+Coding.swift).
    ///
    /// ```swift
    /// let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    /// unarchiver.requiresSecureCoding = false
    /// let element = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSFetchIndexElementDescription
    /// ```
    public required convenience init?(coder: NSCoder) {
        guard let archived = ArchivedFetchIndexElement(coder: coder) else { return nil }
        self.init(propertyName: archived.propertyName, collationType: archived.collationType)
        _isAscending = archived.isAscending
    }
}
