import Synchronization

/// An entity of a managed object model: its name, class, properties, inheritance and constraints —
/// what a table is to a database.
///
/// For example:
/// ```swift
/// let mood = NSEntityDescription()
/// mood.name = "Mood"
/// mood.managedObjectClassName = "Mood"
/// mood.properties = [date, rating, country]
/// ```
open class NSEntityDescription: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: mutable only until its model is frozen (checked on every setter), read-only after;
    // derived values are cached behind a lock only once frozen.

    weak var owningModel: NSManagedObjectModel?
    var _name: String?
    var _managedObjectClassName: String? = "NSManagedObject"
    var _isAbstract = false
    weak var _superentity: NSEntityDescription?
    var _subentities: [NSEntityDescription] = []
    /// The properties declared by this entity itself (not inherited).
    var _ownProperties: [NSPropertyDescription] = []
    var _userInfo: [AnyHashable: Any]?
    var _versionHashModifier: String?
    var _renamingIdentifier: String?
    var _indexes: [NSFetchIndexDescription] = []
    var _uniquenessConstraints: [[Any]] = []
    var _compoundIndexes: [[Any]] = []

    let propertiesByNameCache = FrozenCache<[String: NSPropertyDescription]>()
    let hashCache = FrozenCache<Data>()
    let layoutCache = OnceReference<EntityLayout>()
    /// Set once the model is seen frozen (freezing is final): then `isFrozen` does not load the weak model
    /// reference (a retain and release through the model's side table, on every object created).
    private let seenFrozen = Atomic<Bool>(false)

    public override init() { super.init() }

    /// Whether the entity's model is frozen (in use by a coordinator), so the entity can no longer change.
    var isFrozen: Bool {
        if seenFrozen.load(ordering: .acquiring) { return true }
        guard owningModel?.isFrozen == true else { return false }
        seenFrozen.store(true, ordering: .releasing)
        return true
    }

    private func willMutate(_ what: @autoclosure () -> String) {
        checkModelEditable(owningModel, "set \(what()) of entity '\(_name ?? "?")'")
    }

    /// The model this entity belongs to.
    ///
    /// Accessing it before the entity is added to a model stops the program (Apple's is unowned(unsafe)).
    public var managedObjectModel: NSManagedObjectModel {
        guard let owningModel else { preconditionFailure("The entity '\(_name ?? "?")' has not been added to a model.") }
        return owningModel
    }

    /// The entity's name, unique within its model.
    public var name: String? {
        get { _name }
        set { willMutate("name"); _name = newValue }
    }

    /// The name of the `NSManagedObject` subclass that represents the entity's objects
    /// (`"NSManagedObject"` when there is none).
    public var managedObjectClassName: String! {
        get { _managedObjectClassName }
        set { willMutate("managedObjectClassName"); _managedObjectClassName = newValue }
    }

    /// Whether the entity is abstract: no object of exactly this entity can be created.
    public var isAbstract: Bool {
        get { _isAbstract }
        set { willMutate("isAbstract"); _isAbstract = newValue }
    }

    /// The entity this one inherits from (set through the super-entity's `subentities`).
    public var superentity: NSEntityDescription? { _superentity }

    /// The entities that inherit from this one. Setting it also sets each one's `superentity`.
    public var subentities: [NSEntityDescription] {
        get { _subentities }
        set {
            willMutate("subentities")
            for old in _subentities where old._superentity === self { old._superentity = nil }
            _subentities = newValue
            for entity in newValue { entity._superentity = self }
        }
    }

    /// The sub-entities by name.
    public var subentitiesByName: [String: NSEntityDescription] {
        Dictionary(_subentities.compactMap { entity in entity._name.map { ($0, entity) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The entity's properties, inherited ones first. Setting it sets the properties the entity declares itself.
    public var properties: [NSPropertyDescription] {
        get { (_superentity?.properties ?? []) + _ownProperties }
        set {
            willMutate("properties")
            var seen = Set<String>()
            for property in newValue {
                precondition(
                    seen.insert(property._name).inserted,
                    "Entity '\(_name ?? "?")' cannot have two properties named '\(property._name)'.")
                precondition(
                    property.owningEntity == nil || property.owningEntity === self,
                    "The property '\(property._name)' already belongs to entity '\(property.owningEntity?._name ?? "?")'.")
            }
            for old in _ownProperties where old.owningEntity === self { old.owningEntity = nil }
            _ownProperties = newValue
            for property in newValue { property.owningEntity = self }
        }
    }

    /// Every property, inherited ones included, by name.
    public var propertiesByName: [String: NSPropertyDescription] {
        propertiesByNameCache.value(frozen: isFrozen) {
            var byName = _superentity?.propertiesByName ?? [:]
            for property in _ownProperties { byName[property._name] = property }
            return byName
        }
    }

    /// Every attribute, inherited ones included, by name.
    public var attributesByName: [String: NSAttributeDescription] {
        propertiesByName.compactMapValues { $0 as? NSAttributeDescription }
    }

    /// Every relationship, inherited ones included, by name.
    public var relationshipsByName: [String: NSRelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? NSRelationshipDescription }
    }

    /// The relationships whose destination is `entity`.
    public func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        properties.compactMap { $0 as? NSRelationshipDescription }.filter { $0.destinationEntity === entity }
    }

    /// Whether this entity is `entity` or inherits from it.
    public func isKindOf(entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate._superentity
        }
        return false
    }

    /// Arbitrary user data from the model editor.
    public var userInfo: [AnyHashable: Any]? {
        get { _userInfo }
        set { willMutate("userInfo"); _userInfo = newValue }
    }

    /// A string mixed into the version hash so that otherwise identical versions hash differently.
    public var versionHashModifier: String? {
        get { _versionHashModifier }
        set { willMutate("versionHashModifier"); _versionHashModifier = newValue }
    }

    /// The entity's name in the previous model version (the model editor's "Renaming ID").
    public var renamingIdentifier: String? {
        get { _renamingIdentifier }
        set { willMutate("renamingIdentifier"); _renamingIdentifier = newValue }
    }

    /// The entity's fetch indexes.
    public var indexes: [NSFetchIndexDescription] {
        get { _indexes }
        set {
            willMutate("indexes")
            _indexes = newValue
            for index in newValue { index.owningEntity = self }
        }
    }

    /// The uniqueness constraints: each an array of property names (`String`) or property descriptions whose
    /// combined values must be unique among the entity's objects.
    public var uniquenessConstraints: [[Any]] {
        get { _uniquenessConstraints }
        set { willMutate("uniquenessConstraints"); _uniquenessConstraints = newValue }
    }

    /// The uniqueness constraints as property names.
    var uniquenessConstraintNames: [[String]] {
        _uniquenessConstraints.map { constraint in
            constraint.map { element in
                if let property = element as? NSPropertyDescription { return property._name }
                return "\(element)"
            }
        }
    }

    /// The compound indexes (deprecated by Apple in favour of `indexes`): arrays of property names or descriptions.
    public var compoundIndexes: [[Any]] {
        get { _compoundIndexes }
        set { willMutate("compoundIndexes"); _compoundIndexes = newValue }
    }

    /// The version hash: a SHA-256 digest of what makes the entity's stored form incompatible between model
    /// versions, computed exactly as Apple's Core Data does (store-format.md §12). Stores record it per entity
    /// in their metadata (`NSStoreModelVersionHashes`).
    public var versionHash: Data {
        hashCache.value(frozen: isFrozen) { Data(VersionHasher.entityHash(self)) }
    }

    /// The root of the entity's inheritance hierarchy.
    var rootEntity: NSEntityDescription {
        var entity = self
        while let parent = entity._superentity { entity = parent }
        return entity
    }

    /// A copy of the entity with copies of its own properties, not attached to any model, without
    /// super- or sub-entities (the model's copy re-links those by name).
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSEntityDescription()
        copyFields(into: copy)
        return copy
    }

    /// Decodes an entity archived with `encode(with:)`: like `copy()`, an entity with its own properties, attached
    /// to no model; nil when the coder holds none (NSEntityDescription+Coding.swift).
    ///
    /// ```swift
    /// let entity = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSEntityDescription.self, from: data)
    /// ```
    public required convenience init?(coder: NSCoder) {
        guard let decoded = NSEntityDescription.decodedEntity(from: coder) else { return nil }
        self.init()
        decoded.copyFields(into: self)
    }

    /// Copies the entity's own fields and properties (not its model, super- or sub-entities) into `copy`.
    func copyFields(into copy: NSEntityDescription) {
        copy._name = _name
        copy._managedObjectClassName = _managedObjectClassName
        copy._isAbstract = _isAbstract
        copy._userInfo = _userInfo
        copy._versionHashModifier = _versionHashModifier
        copy._renamingIdentifier = _renamingIdentifier
        copy.properties = _ownProperties.map { $0.copy() as! NSPropertyDescription }
        copy.indexes = _indexes.map { $0.copy() as! NSFetchIndexDescription }
        copy._uniquenessConstraints = uniquenessConstraintNames
        copy._compoundIndexes = _compoundIndexes.map { index in
            index.map { ($0 as? NSPropertyDescription)?._name ?? "\($0)" }
        }
    }

    open override var description: String {
        "(NSEntityDescription) name \(_name ?? "nil"), managedObjectClassName \(_managedObjectClassName ?? "nil"), "
            + "abstract \(_isAbstract), superentity \(_superentity?._name ?? "nil"), "
            + "properties [\(properties.map(\._name).joined(separator: ", "))], "
            + "subentities [\(_subentities.compactMap(\._name).joined(separator: ", "))]"
    }
}
