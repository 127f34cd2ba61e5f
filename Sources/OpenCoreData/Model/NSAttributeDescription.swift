/// An attribute of an entity: a named value of one of Core Data's attribute types.
///
/// For example:
/// ```swift
/// let rating = NSAttributeDescription()
/// rating.name = "rating"
/// rating.attributeType = .integer16AttributeType
/// rating.defaultValue = 0
/// rating.isOptional = false
/// ```
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: as NSPropertyDescription — mutable only until the model is frozen.

    var _attributeType: NSAttributeType = .undefinedAttributeType
    var _attributeValueClassName: String?
    var _defaultValue: Any?
    var _valueTransformerName: String?
    var _allowsExternalBinaryDataStorage = false
    var _preservesValueInHistoryOnDeletion = false
    var _allowsCloudEncryption = false

    public override init() { super.init() }

    override var kindName: String { "attribute" }

    /// The attribute's version hash, the SHA-256 digest Apple's Core Data computes over what makes its stored form
    /// incompatible between model versions (name, optional/transient/read-only flags, `versionHashModifier`, attribute type, external storage,
    /// history preservation (and a composite's elements)); the entity's `versionHash` includes it.
    ///
    /// ```swift
    /// let hash = model.entitiesByName["Mood"]!.attributesByName["rating"]!.versionHash   // 32 bytes
    /// ```
    public override var versionHash: Data { super.versionHash }

    /// The attribute's type. Setting it also sets `attributeValueClassName` to the type's class (`NSString`,
    /// `NSNumber`, `NSDate`, …), as Apple's does.
    public var attributeType: NSAttributeType {
        get { _attributeType }
        set {
            willMutate("attributeType")
            _attributeType = newValue
            if let className = newValue.defaultValueClassName { _attributeValueClassName = className }
        }
    }

    /// The attribute's type in the iOS 15+ spelling.
    public var type: AttributeType {
        get { AttributeType(rawValue: attributeType) }
        set { attributeType = newValue.rawValue }
    }

    /// The name of the class of the attribute's values (`NSString`, `NSNumber`, … or a transformable's class).
    public var attributeValueClassName: String? {
        get { _attributeValueClassName }
        set { willMutate("attributeValueClassName"); _attributeValueClassName = newValue }
    }

    /// The value a newly inserted object gets (`NSNumber` for numbers and booleans, as Apple's).
    public var defaultValue: Any? {
        get { _defaultValue }
        set { willMutate("defaultValue"); _defaultValue = newValue }
    }

    /// The name of the `ValueTransformer` that converts a transformable attribute's value to and from data.
    /// `nil` means Apple's default, `NSSecureUnarchiveFromData`.
    public var valueTransformerName: String? {
        get { _valueTransformerName }
        set { willMutate("valueTransformerName"); _valueTransformerName = newValue }
    }

    /// Whether large binary values may be stored in a file next to the store instead of in the row.
    public var allowsExternalBinaryDataStorage: Bool {
        get { _allowsExternalBinaryDataStorage }
        set { willMutate("allowsExternalBinaryDataStorage"); _allowsExternalBinaryDataStorage = newValue }
    }

    /// Whether persistent history keeps the value in the tombstone of a deleted object.
    public var preservesValueInHistoryOnDeletion: Bool {
        get { _preservesValueInHistoryOnDeletion }
        set { willMutate("preservesValueInHistoryOnDeletion"); _preservesValueInHistoryOnDeletion = newValue }
    }

    /// Whether CloudKit encrypts the value (kept for compatibility; CloudKit does not exist on Linux).
    public var allowsCloudEncryption: Bool {
        get { _allowsCloudEncryption }
        set { willMutate("allowsCloudEncryption"); _allowsCloudEncryption = newValue }
    }

    func copyAttributeFields(into copy: NSAttributeDescription) {
        copyBaseFields(into: copy)
        copy._attributeType = _attributeType
        copy._attributeValueClassName = _attributeValueClassName
        copy._defaultValue = _defaultValue
        copy._valueTransformerName = _valueTransformerName
        copy._allowsExternalBinaryDataStorage = _allowsExternalBinaryDataStorage
        copy._preservesValueInHistoryOnDeletion = _preservesValueInHistoryOnDeletion
        copy._allowsCloudEncryption = _allowsCloudEncryption
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSAttributeDescription()
        copyAttributeFields(into: copy)
        return copy
    }

    override func copyFields(into copy: NSPropertyDescription) {
        if let copy = copy as? NSAttributeDescription { copyAttributeFields(into: copy) } else { super.copyFields(into: copy) }
    }

    open override var description: String {
        "(NSAttributeDescription) name \(_name), isOptional \(_isOptional), isTransient \(_isTransient), "
            + "entity \(owningEntity?.name ?? "nil"), attributeType \(_attributeType.rawValue), "
            + "attributeValueClassName \(_attributeValueClassName ?? "nil"), defaultValue \(_defaultValue.map { "\($0)" } ?? "nil")"
    }
}
