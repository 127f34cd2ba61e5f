/// What happens to a relationship's destination objects when the source object is deleted.
public enum NSDeleteRule: UInt, Sendable, Hashable {
    /// Do nothing: the destination keeps pointing at the deleted object (you must fix the graph yourself).
    case noActionDeleteRule = 0
    /// Remove the deleted object from the destination's inverse relationship.
    case nullifyDeleteRule = 1
    /// Delete the destination objects too.
    case cascadeDeleteRule = 2
    /// Refuse the deletion while the relationship has destination objects.
    case denyDeleteRule = 3
}

/// A relationship from one entity to another: to-one or to-many, ordered or not, with an inverse and a
/// delete rule.
///
/// For example:
/// ```swift
/// let moods = NSRelationshipDescription()
/// moods.name = "moods"
/// moods.destinationEntity = moodEntity
/// moods.maxCount = 0            // to-many
/// moods.deleteRule = .cascadeDeleteRule
/// moods.inverseRelationship = country
/// ```
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: as NSPropertyDescription — mutable only until the model is frozen.

    weak var _destinationEntity: NSEntityDescription?
    /// The destination's name, kept so that copies and merged models can re-link the relationship.
    var _destinationEntityName: String?
    weak var _inverseRelationship: NSRelationshipDescription?
    /// The inverse's name, kept for the same reason.
    var _inverseRelationshipName: String?
    var _maxCount = 1
    var _minCount = 0
    var _deleteRule: NSDeleteRule = .nullifyDeleteRule
    var _isOrdered = false

    public override init() { super.init() }

    override var kindName: String { "relationship" }

    /// The relationship's version hash, the SHA-256 digest Apple's Core Data computes over what makes its stored form
    /// incompatible between model versions (name, optional/transient/read-only flags, `versionHashModifier`, destination entity name,
    /// inverse name, count bounds and ordering); the entity's `versionHash` includes it.
    ///
    /// ```swift
    /// let hash = model.entitiesByName["Mood"]!.relationshipsByName["country"]!.versionHash   // 32 bytes
    /// ```
    public override var versionHash: Data { super.versionHash }

    /// The entity at the other end of the relationship.
    public var destinationEntity: NSEntityDescription? {
        get { _destinationEntity ?? owningModel.flatMap { model in _destinationEntityName.flatMap { model.entity(named: $0) } } }
        set {
            willMutate("destinationEntity")
            _destinationEntity = newValue
            _destinationEntityName = newValue?.name
        }
    }

    /// The relationship in the destination entity that points back.
    public var inverseRelationship: NSRelationshipDescription? {
        get {
            if let inverse = _inverseRelationship { return inverse }
            guard let name = _inverseRelationshipName, let destination = destinationEntity else { return nil }
            return destination.relationshipsByName[name]
        }
        set {
            willMutate("inverseRelationship")
            _inverseRelationship = newValue
            _inverseRelationshipName = newValue?.name
        }
    }

    /// The destination entity's name (even while the destination is not yet linked).
    var destinationEntityName: String? { _destinationEntity?.name ?? _destinationEntityName }

    /// The inverse relationship's name (even while the inverse is not yet linked).
    var inverseRelationshipName: String? { _inverseRelationship?.name ?? _inverseRelationshipName }

    /// The maximum number of destination objects: 1 for a to-one relationship, 0 for "no limit".
    public var maxCount: Int {
        get { _maxCount }
        set { willMutate("maxCount"); _maxCount = newValue }
    }

    /// The minimum number of destination objects (0 = no minimum).
    public var minCount: Int {
        get { _minCount }
        set { willMutate("minCount"); _minCount = newValue }
    }

    /// What deleting the source object does to the destination objects. Defaults to nullify.
    public var deleteRule: NSDeleteRule {
        get { _deleteRule }
        set { willMutate("deleteRule"); _deleteRule = newValue }
    }

    /// Whether the relationship is to-many (`maxCount` is not 1).
    public var isToMany: Bool { _maxCount != 1 }

    /// Whether a to-many relationship keeps its objects in order (an `NSOrderedSet`).
    public var isOrdered: Bool {
        get { _isOrdered }
        set { willMutate("isOrdered"); _isOrdered = newValue }
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSRelationshipDescription()
        copyFields(into: copy)
        return copy
    }

    override func copyFields(into copy: NSPropertyDescription) {
        super.copyFields(into: copy)
        guard let copy = copy as? NSRelationshipDescription else { return }
        copy._destinationEntityName = destinationEntityName
        copy._inverseRelationshipName = inverseRelationshipName
        copy._maxCount = _maxCount
        copy._minCount = _minCount
        copy._deleteRule = _deleteRule
        copy._isOrdered = _isOrdered
    }

    open override var description: String {
        "(NSRelationshipDescription) name \(_name), isOptional \(_isOptional), isTransient \(_isTransient), "
            + "entity \(owningEntity?.name ?? "nil"), destination entity \(destinationEntityName ?? "nil"), "
            + "inverse relationship \(inverseRelationshipName ?? "nil"), minCount \(_minCount), maxCount \(_maxCount), "
            + "isOrdered \(_isOrdered), deleteRule \(_deleteRule.rawValue)"
    }
}
