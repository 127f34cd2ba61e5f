/// A property of an entity: the common base of attributes, relationships and fetched properties.
///
/// As in Apple's Core Data, a property is editable until the model that contains it is used by a persistent
/// store coordinator; after that, any mutation stops the program.
///
/// For example:
/// ```swift
/// let name = NSAttributeDescription()
/// name.name = "name"
/// name.attributeType = .stringAttributeType
/// name.isOptional = false
/// ```
open class NSPropertyDescription: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: mutable only until its model is frozen (checked on every setter), read-only after.

    /// The entity this property belongs to (set when the property is added to an entity).
    weak var owningEntity: NSEntityDescription?
    var _name: String = ""
    var _isOptional = true
    var _isTransient = false
    var _userInfo: [AnyHashable: Any]?
    var _isIndexed = false
    var _versionHashModifier: String?
    var _renamingIdentifier: String?
    var _isIndexedBySpotlight = false
    var _isStoredInExternalRecord = false
    /// Validation rules as (predicate format, warning) pairs, in order.
    var _validationRules: [ValidationRule] = []
    let hashCache = FrozenCache<Data>()

    public override init() { super.init() }

    /// The model this property's entity belongs to, if any.
    var owningModel: NSManagedObjectModel? { owningEntity?.owningModel }

    /// Stops the program if the model is frozen.
    func willMutate(_ what: @autoclosure () -> String) {
        checkModelEditable(owningModel, "set \(what()) of property '\(_name)' of entity '\(owningEntity?.name ?? "?")'")
    }

    /// The entity that contains this property.
    ///
    /// Accessing it before the property is added to an entity stops the program (Apple's is unowned(unsafe)).
    public var entity: NSEntityDescription {
        guard let owningEntity else {
            preconditionFailure("The property '\(_name)' has not been added to an entity.")
        }
        return owningEntity
    }

    /// The property's name; unique within its entity and its super-entities.
    public var name: String {
        get { _name }
        set { willMutate("name"); _name = newValue }
    }

    /// Whether the property may be nil when the object is saved. Defaults to `true`.
    public var isOptional: Bool {
        get { _isOptional }
        set { willMutate("isOptional"); _isOptional = newValue }
    }

    /// Whether the property is transient (kept in memory, never saved to a store).
    public var isTransient: Bool {
        get { _isTransient }
        set { willMutate("isTransient"); _isTransient = newValue }
    }

    /// Arbitrary user data from the model editor.
    public var userInfo: [AnyHashable: Any]? {
        get { _userInfo }
        set { willMutate("userInfo"); _userInfo = newValue }
    }

    /// Whether the store should index the property (deprecated by Apple in favour of fetch indexes).
    public var isIndexed: Bool {
        get { _isIndexed }
        set { willMutate("isIndexed"); _isIndexed = newValue }
    }

    /// Whether Spotlight indexes the property (kept for compatibility; no effect on Linux).
    public var isIndexedBySpotlight: Bool {
        get { _isIndexedBySpotlight }
        set { willMutate("isIndexedBySpotlight"); _isIndexedBySpotlight = newValue }
    }

    /// Whether the property is stored in an external record (kept for compatibility; no effect on Linux).
    public var isStoredInExternalRecord: Bool {
        get { _isStoredInExternalRecord }
        set { willMutate("isStoredInExternalRecord"); _isStoredInExternalRecord = newValue }
    }

    /// A string mixed into the version hash so that otherwise identical versions hash differently.
    public var versionHashModifier: String? {
        get { _versionHashModifier }
        set { willMutate("versionHashModifier"); _versionHashModifier = newValue }
    }

    /// The property's name in the previous model version (the model editor's "Renaming ID"),
    /// used by lightweight migration to recognise a renamed property.
    public var renamingIdentifier: String? {
        get { _renamingIdentifier }
        set { willMutate("renamingIdentifier"); _renamingIdentifier = newValue }
    }

    /// The version hash: a SHA-256 digest of what makes the property's stored form incompatible between
    /// model versions, computed exactly as Apple's Core Data does (store-format.md §12).
    public var versionHash: Data {
        hashCache.value(frozen: owningModel?.isFrozen ?? false) { Data(VersionHasher.propertyHash(self)) }
    }

    /// The flags Core Data hashes: 1 optional, 2 transient, 4 read-only.
    var versionHashFlags: Int16 {
        (_isOptional ? 1 : 0) | (_isTransient ? 2 : 0) | (isReadOnlyForHashing ? 4 : 0)
    }

    /// Whether the property is read-only (derived attributes are).
    var isReadOnlyForHashing: Bool { false }

    /// The property kind for messages ("attribute", "relationship", "fetched property").
    var kindName: String { "property" }

    /// Copies the common fields into `copy`.
    func copyBaseFields(into copy: NSPropertyDescription) {
        copy._name = _name
        copy._isOptional = _isOptional
        copy._isTransient = _isTransient
        copy._userInfo = _userInfo
        copy._isIndexed = _isIndexed
        copy._versionHashModifier = _versionHashModifier
        copy._renamingIdentifier = _renamingIdentifier
        copy._isIndexedBySpotlight = _isIndexedBySpotlight
        copy._isStoredInExternalRecord = _isStoredInExternalRecord
        copy._validationRules = _validationRules
    }

    /// A copy of the property, not attached to any entity.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPropertyDescription()
        copyFields(into: copy)
        return copy
    }

    /// Copies every field of the property, its kind's included, into `copy` (a property of the same class).
    func copyFields(into copy: NSPropertyDescription) {
        copyBaseFields(into: copy)
    }

    /// Decodes a property archived with `encode(with:)`: like `copy()`, a property attached to no entity; nil when
    /// the coder holds none, or one of another class (NSPropertyDescription+Coding.swift).
    ///
    /// ```swift
    /// let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    /// unarchiver.requiresSecureCoding = false
    /// let attribute = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSAttributeDescription
    /// ```
    public required convenience init?(coder: NSCoder) {
        guard let decoded = NSPropertyDescription.decodedProperty(from: coder) else { return nil }
        self.init()
        guard Swift.type(of: decoded) == Swift.type(of: self) else { return nil }
        decoded.copyFields(into: self)
    }

    open override var description: String {
        "(\(type(of: self))) name \(_name), isOptional \(_isOptional), isTransient \(_isTransient), entity \(owningEntity?.name ?? "nil")"
    }
}

/// One validation rule of a property: a predicate the value must satisfy and the warning (an error code or
/// a message) reported when it does not. Xcode's model compiler turns the model editor's minimum, maximum and
/// regular-expression settings into such rules.
struct ValidationRule: @unchecked Sendable {
    // @unchecked Sendable: `warning` holds an NSNumber or a String, both immutable; predicates are immutable.
    /// The predicate, with `SELF` the value being validated.
    var predicate: NSPredicate
    /// An error code (`NSNumber`) or a message (`String`).
    var warning: Any

    /// The predicate in format-string syntax.
    var predicateFormat: String { predicate.predicateFormat }
}
