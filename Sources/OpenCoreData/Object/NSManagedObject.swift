/// An object of a managed object model, living in a managed object context that tracks its changes,
/// keeps its relationships consistent with their inverses, validates and saves it.
///
/// Subclass it per entity and declare properties with `@Managed` (the Linux spelling of `@NSManaged`):
/// ```swift
/// final class Mood: NSManagedObject {
///     @Managed var date: Date
///     @Managed var rating: Int16
///     @Managed var country: Country?
/// }
/// let mood = Mood(context: context)
/// mood.date = Date()
/// try context.save()
/// ```
/// Key-value coding works on every object, with or without a subclass:
/// `mood.value(forKey: "rating") as? Int`, `mood.setValue(3, forKey: "rating")`.
///
/// Managed objects are not `Sendable`: use them only on their context's queue, and pass `objectID`s between
/// contexts.
open class NSManagedObject: NSObject, KeyPathNaming, KeyValueCoding {
    /// The object's entity.
    ///
    /// ```swift
    /// mood.entity.name   // "Mood"
    /// ```
    public var entity: NSEntityDescription { layout.entity }   // read through the layout: one reference less per object
    /// The entity's precomputed layout.
    let layout: EntityLayout
    // Exclusivity: the object's state below is marked `@exclusivity(unchecked)`: each check was a thread-local
    // look-up (about 80 instructions), and a fetched object paid several. Every access is this module's own, on the
    // context's queue, and is instantaneous: a plain read or write, never passed `inout` nor held across a call
    // (values are computed before they are stored), so no two accesses can overlap.
    @exclusivity(unchecked) var _objectID: NSManagedObjectID
    @exclusivity(unchecked) weak var _context: NSManagedObjectContext?

    // MARK: State

    /// Where the object is in its life: its pending change and whether it is a fault. Changed only through its
    /// transitions (``ObjectLifeCycle``).
    @exclusivity(unchecked) var lifeCycle = ObjectLifeCycle.new
    /// Whether the object's values are not loaded (a fault).
    var _isFault: Bool { lifeCycle.isFault }
    /// Whether the object was inserted and the insertion not yet saved (deleted since or not).
    var _isInserted: Bool { lifeCycle.isInserted }
    /// Whether the object was deleted and the deletion not yet saved.
    var _isDeleted: Bool { lifeCycle.isDeleted }
    /// Whether the object has changes the context tracks as an update (deleted since or not).
    var _isUpdated: Bool { lifeCycle.isUpdated }
    /// Whether `awakeFromInsert()` was called (it is called once in an object's life).
    var hasAwakenedFromInsert = false
    /// Whether the object is a key-path recording probe (see `KeyPathRecorder`); probes have no storage.
    var isKeyPathProbe = false
    /// Whether a `@Managed` setter records the object's changes directly: 0 until its first setter asks, 1 when the
    /// class overrides none of `willChangeValue(forKey:)`, `didChangeValue(forKey:)` and `primitiveValue(forKey:)`
    /// (``OverriddenMethods/tracksChangesLikeTheBaseClass(_:)``), 2 when it overrides one. Decided on first use, so
    /// that objects only read (a fetch's) do not pay for the check.
    @exclusivity(unchecked) private var changeTrackingPath: UInt8 = 0
    /// Whether the object is in its context's ``NSManagedObjectContext/eventTouchedObjects`` (kept here, so that
    /// adding it takes no hash look-up).
    @exclusivity(unchecked) var isEventTouched = false

    // MARK: Values (valid when not a fault)

    /// Attribute values in stored form, by layout slot; shared with the committed snapshot until changed.
    ///
    /// Not checked for exclusive access at run time: every getter and `apply(_:)` paid a check (a thread-local
    /// look-up) for it. The accesses are this module's own, on the context's queue, and none runs code of the
    /// application while the array is being changed (its elements are plain values).
    @exclusivity(unchecked) var attributeValues: [StoredValue]
    /// To-one relationship values, by layout slot.
    @exclusivity(unchecked) var toOneValues: [ToOneValue]
    /// To-many relationship values, by layout slot.
    @exclusivity(unchecked) var toManyValues: [ToManyValue]
    /// The row as the store last had it (nil for an object never saved).
    @exclusivity(unchecked) var committedSnapshot: ObjectSnapshot?
    /// Values of the keys changed during the current event, as they were when the event began: what `@Managed`
    /// attribute setters recorded (stored form), and the rest (``EventOldValues``).
    ///
    /// Not checked for exclusive access at run time, for the reason `attributeValues` is not: its values are plain
    /// (a setter paid a check, a thread-local look-up, per change).
    @exclusivity(unchecked) var eventOldAttributes = EventOldAttributes()
    @exclusivity(unchecked) var eventOldValues = EventOldValues()
    /// The state few objects need (transformable attributes, changed or realized to-many relationships), made on
    /// first need (``ObjectExtras``).
    @exclusivity(unchecked) var extras: ObjectExtras?

    /// A to-one relationship value.
    enum ToOneValue {
        /// No destination.
        case none
        /// A destination known by ID only (not yet resolved to an object of the context).
        case id(NSManagedObjectID)
        /// A destination object.
        case object(NSManagedObject)
    }

    /// A to-many relationship value.
    enum ToManyValue {
        /// Not loaded yet.
        case fault
        /// The members.
        case members(RelationshipMembers)
    }

    /// A change of an object's key between `willChangeValue` and `didChangeValue`: the old value captured, and the
    /// nesting depth of will/did pairs for the key (its context keeps them: ``NSManagedObjectContext/pendingChanges``).
    struct PendingChange {
        let object: NSManagedObject
        let key: String
        var oldValue: Any?
        var depth: Int
    }

    // MARK: Creation

    /// Creates an object of `entity` and, if `context` is not nil, inserts it (Apple's designated initializer).
    ///
    /// It is `required` here (Apple's is not): contexts create your subclass through its metatype, which Swift
    /// allows only for required initializers. Subclasses that override it write `required override init`.
    ///
    /// For example:
    /// ```swift
    /// let mood = Mood(entity: Mood.entity(), insertInto: context)
    /// ```
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        if !entity.isFrozen, let model = entity.owningModel {
            model.freeze()
            ManagedObjectClassRegistry.noteModelInUse(model)
        }
        precondition(!entity.isAbstract || context == nil || ManagedObjectFactory.isMaterializing,
                     "Cannot create an object of the abstract entity '\(entity.name ?? "?")'.")
        layout = entity.layout
        // A probe is known by its entity's layout (a task-local flag cost about 100 instructions an object); it is
        // never the object a context is materializing, even when a subclass's initializer names a key path during one.
        isKeyPathProbe = layout.isKeyPathProbe
        let materializing = isKeyPathProbe ? nil : ManagedObjectFactory.pendingObjectID
        _objectID = materializing ?? NSManagedObjectID.temporary(for: entity)
        attributeValues = layout.defaultAttributes
        toOneValues = layout.faultToOneValues
        // A fault's to-many relationships are faults too (its values arrive with `apply(_:)`).
        toManyValues = materializing != nil ? layout.faultToManyValues
            : layout.toManyRelationships.map { RelationshipMembersFactory.empty($0) }
        super.init()
        if materializing != nil {
            // Created by a context for an existing object: it starts as a fault, awaiting its values.
            lifeCycle = .fault
            return
        }
        transformedValues = layout.transformableDefaults
        if let context { context.insert(self) }
    }

    /// Apple's Objective-C-derived spelling of `init(entity:insertInto:)`.
    public convenience init(entity: NSEntityDescription, insertIntoManagedObjectContext context: NSManagedObjectContext?) {
        self.init(entity: entity, insertInto: context)
    }

    /// Creates an object of the entity whose class is this class, and inserts it into `context`.
    ///
    /// It is `required`, so generic code can create `Self` (`Self(context: context)` in a protocol extension, or
    /// `type.init(context:)` on a metatype) as it can on Apple platforms, where Objective-C initializers allow it.
    ///
    /// For example:
    /// ```swift
    /// let mood = Mood(context: context)
    /// ```
    public required convenience init(context moc: NSManagedObjectContext) {
        guard let entity = moc.entity(forObjectClass: Self.self) else {
            preconditionFailure("No entity of the context's model has the managed object class '\(Self.self)'.")
        }
        self.init(entity: entity, insertInto: moc)
    }

    /// Whether a `@Managed` setter may record this object's changes directly (see ``changeTrackingPath``). Decided at
    /// the first setter by vtable probing, an unsafe fast path: with ``UnsafeFastPaths/isEnabled`` false, never.
    var tracksChangesDirectly: Bool {
        if changeTrackingPath == 0 {
            changeTrackingPath = UnsafeFastPaths.isEnabled && OverriddenMethods.tracksChangesLikeTheBaseClass(type(of: self)) ? 1 : 2
        }
        return changeTrackingPath == 1
    }

    // MARK: Identity and state

    /// The object's ID: temporary until the object is saved, permanent afterwards.
    public var objectID: NSManagedObjectID { _objectID }

    /// The context the object lives in, or nil if it was never inserted or was deleted and saved.
    public var managedObjectContext: NSManagedObjectContext? { _context }

    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { _isInserted }

    /// Whether the object has unsaved changes to its persistent properties.
    public var isUpdated: Bool { lifeCycle.change == .updated }

    /// Whether the object was deleted and the deletion not yet saved.
    public var isDeleted: Bool { _isDeleted }

    /// Whether the object is inserted, updated or deleted.
    public var hasChanges: Bool { lifeCycle.hasChanges }

    /// Whether the object's values are not loaded; accessing a property fires the fault.
    public var isFault: Bool { _isFault }

    /// 0 when the object is fully realized, non-zero when it (or some of its relationships) is a fault.
    public var faultingState: Int {
        if _isFault { return 1 }
        return toManyValues.contains { if case .fault = $0 { return true } else { return false } } ? 2 : 0
    }

    /// Whether the to-many relationship `key` is not loaded yet.
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        if _isFault { return true }
        guard case .toMany(let slot, _)? = layout.slots[key] else {
            guard case .toOne(let slot, _)? = layout.slots[key] else { return false }
            if case .id = toOneValues[slot] { return true }
            return false
        }
        if case .fault = toManyValues[slot] { return true }
        return false
    }

    // MARK: Key-value coding (overridable; implemented in NSManagedObject+KeyValueCoding.swift)
    // Swift on Linux cannot override methods declared in extensions, so every overridable method is declared
    // here and forwards to its implementation.

    /// The value of a property, as Apple's Core Data returns it: `NSNumber` for numbers and booleans,
    /// `NSDecimalNumber`, `String`, `Date`, `Data`, `UUID`, `URL`, the transformed object of a transformable,
    /// the destination object of a to-one relationship, and an `NSSet` (`NSOrderedSet` when ordered) for a
    /// to-many relationship. Fires the fault if needed. An unknown key stops the program (Apple raises).
    ///
    /// For example:
    /// ```swift
    /// let rating = mood.value(forKey: "rating") as? Int
    /// let moods = country.value(forKey: "moods") as? Set<Mood>
    /// ```
    open func value(forKey key: String) -> Any? { valueImpl(forKey: key) }

    /// Sets a property through key-value coding: the change is tracked, undoable, and relationships update their
    /// inverses. Numbers may be any Swift integer or floating-point value or `NSNumber`; to-many relationships
    /// accept `Set`, `NSSet`, `NSOrderedSet` or an array of objects. A value of the wrong kind or an unknown key
    /// stops the program with a message naming the entity, key and expected type (Apple raises).
    ///
    /// For example:
    /// ```swift
    /// mood.setValue(4, forKey: "rating")
    /// mood.setValue(country, forKey: "country")
    /// ```
    open func setValue(_ value: Any?, forKey key: String) { setValueImpl(value, forKey: key) }

    /// The value at a dotted key path (`"country.continent.numericISO3166Code"`), through to-one and
    /// to-many relationships and collection operators (`"moods.@count"`).
    ///
    /// For example:
    /// ```swift
    /// let code = mood.value(forKeyPath: "country.numericISO3166Code") as? Int
    /// ```
    open func value(forKeyPath keyPath: String) -> Any? { valueImpl(forKeyPath: keyPath) }

    /// Sets the value at a dotted key path (every key but the last must lead to an object).
    ///
    /// For example:
    /// ```swift
    /// mood.setValue(250, forKeyPath: "country.numericISO3166Code")
    /// ```
    open func setValue(_ value: Any?, forKeyPath keyPath: String) { setValueImpl(value, forKeyPath: keyPath) }

    /// The stored value of a property without change notifications (for custom accessors).
    ///
    /// For example:
    /// ```swift
    /// willAccessValue(forKey: "date")
    /// let date = primitiveValue(forKey: "date") as? Date
    /// didAccessValue(forKey: "date")
    /// ```
    open func primitiveValue(forKey key: String) -> Any? { primitiveValueImpl(forKey: key) }

    /// Stores a property's value without change notifications, inverse maintenance or undo (for custom
    /// accessors, between `willChangeValue` and `didChangeValue`).
    ///
    /// For example:
    /// ```swift
    /// willChangeValue(forKey: "date"); setPrimitiveValue(date, forKey: "date"); didChangeValue(forKey: "date")
    /// ```
    open func setPrimitiveValue(_ value: Any?, forKey key: String) { setPrimitiveValueImpl(value, forKey: key) }

    /// Call before reading a property in a custom accessor: fires the fault.
    open func willAccessValue(forKey key: String?) { willAccessValueImpl(forKey: key) }

    /// Call after reading a property in a custom accessor.
    open func didAccessValue(forKey key: String?) {}

    /// Call before changing a property in a custom accessor; pair it with `didChangeValue(forKey:)`, which
    /// records the change (updated objects, undo, inverse relationships).
    open func willChangeValue(forKey key: String) { willChangeValueImpl(forKey: key) }

    /// Call after changing a property in a custom accessor.
    open func didChangeValue(forKey key: String) { didChangeValueImpl(forKey: key) }

    /// Set-mutation form of `willChangeValue(forKey:)` (for efficient to-many changes).
    open func willChangeValue(forKey inKey: String, withSetMutation inMutationKind: NSKeyValueSetMutationKind, using inObjects: Set<AnyHashable>) {
        willChangeValue(forKey: inKey)
    }

    /// Set-mutation form of `didChangeValue(forKey:)`.
    open func didChangeValue(forKey inKey: String, withSetMutation inMutationKind: NSKeyValueSetMutationKind, using inObjects: Set<AnyHashable>) {
        didChangeValue(forKey: inKey)
    }

    // MARK: Validation (overridable; implemented in NSManagedObject+Validation.swift)

    /// Validates the object before it is inserted into the store: every property's model rules (required
    /// values, validation predicates, relationship counts) and your `validateValue(_:forKey:)` overrides.
    /// Override it for rules that involve several properties (call `super`).
    ///
    /// For example:
    /// ```swift
    /// override func validateForInsert() throws {
    ///     try super.validateForInsert()
    ///     if latitude == nil && longitude != nil { throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError) }
    /// }
    /// ```
    open func validateForInsert() throws { try validateForInsertImpl() }

    /// Validates the object before its changes are saved (same rules as `validateForInsert()`).
    open func validateForUpdate() throws { try validateForUpdateImpl() }

    /// Validates that the object may be deleted: a relationship with the deny rule must be empty.
    open func validateForDelete() throws { try validateForDeleteImpl() }

    /// Validates (and may coerce) one property value: the model's rules for `key`. Override it to add your own
    /// per-key rules — switch on `key`, throw an `NSError`, and call `super` for the model's rules. This is the
    /// Linux form of Apple's `validateValue(_:forKey:)` and `validate<Key>(_:)` methods (see DEVIATIONS.md).
    ///
    /// For example:
    /// ```swift
    /// override func validateValue(_ value: inout Any?, forKey key: String) throws {
    ///     try super.validateValue(&value, forKey: key)
    ///     if key == "name", let name = value as? String, name.hasPrefix(" ") {
    ///         throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError)
    ///     }
    /// }
    /// ```
    open func validateValue(_ value: inout Any?, forKey key: String) throws { try validateValueImpl(&value, forKey: key) }

    // MARK: Key path names

    /// The key-value-coding name of a Swift key path rooted at this class (`\Mood.country?.name` →
    /// `"country.name"`), for `NSSortDescriptor(keyPath:ascending:)`, `NSExpression(forKeyPath:)` and the
    /// `#Predicate` bridge. Works for `@Managed` properties; returns nil for other key paths.
    ///
    /// For example:
    /// ```swift
    /// Mood.keyPathString(for: \Mood.date)   // "date"
    /// ```
    open class func keyPathString(for keyPath: AnyKeyPath) -> String? {
        KeyPathRecorder.keyPathString(for: keyPath, root: self)
    }

    // MARK: Lifecycle hooks (override them; call super)

    /// Called once, when the object is first inserted into a context: set default values here.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called after undo, rollback, refresh or a merge changed the object.
    open func awake(fromSnapshotEvents flags: NSSnapshotEventType) {}
    /// Called before the object is saved.
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called when the object is deleted, before delete rules are applied.
    open func prepareForDeletion() {}
    /// Called before the object turns into a fault.
    open func willTurnIntoFault() {}
    /// Called after the object turned into a fault.
    open func didTurnIntoFault() {}

    /// Whether the context ignores changes to properties that are not in the model. Always true here.
    open class var contextShouldIgnoreUnmodeledPropertyChanges: Bool { true }

    // MARK: Class-level entity and request

    /// The entity whose managed object class is this class, in the models in use.
    ///
    /// For example:
    /// ```swift
    /// let entity = Mood.entity()
    /// ```
    open class func entity() -> NSEntityDescription {
        guard let entity = ManagedObjectClassRegistry.entity(for: self, in: nil) else {
            preconditionFailure("No entity of a model in use has the managed object class '\(self)'. Create the persistent store coordinator first, or register the class with NSManagedObjectModel.registerManagedObjectClasses(_:).")
        }
        return entity
    }

    /// The object's identity, as `isEqual(_:)` compares it: its address, which sets and dictionaries mix with
    /// their own seed (`NSObject`'s hashes the address a first time; a save builds three sets of its objects).
    ///
    /// ```swift
    /// Set([mood, mood]).count   // 1
    /// ```
    open override var hash: Int { Int(bitPattern: ObjectIdentifier(self)) }

    /// Identity, as `NSObject`'s `isEqual(_:)`: true only for the object itself. An object given as itself is
    /// compared without `NSObject`'s cast from `Any` (a set of objects compares members on most inserts).
    ///
    /// ```swift
    /// mood.isEqual(mood)        // true
    /// mood.isEqual(otherMood)   // false, even with equal values
    /// ```
    open override func isEqual(_ object: Any?) -> Bool {
        guard let object else { return false }
        if let instance = ValueConversion.instance(object) { return instance === self }
        return super.isEqual(object)
    }

    open override var description: String {
        let state = _isFault ? "<fault>" : "{ " + layout.slots.keys.sorted().compactMap { key -> String? in
            guard case .attribute(let slot, let attribute)? = layout.slots[key] else { return nil }
            let value = attribute.attributeType == .transformableAttributeType ? transformedValues[slot] : ValueConversion.kvcValue(attributeValues[slot], for: attribute)
            return "\(key) = \(value.map { "\($0)" } ?? "nil")"
        }.joined(separator: "; ") + " }"
        return "<\(type(of: self)): \(Unmanaged.passUnretained(self).toOpaque())> (entity: \(entity.name ?? "?"); id: \(_objectID); data: \(state))"
    }
}

/// What changed when a managed object is awakened by a snapshot event.
public struct NSSnapshotEventType: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let undoInsertion = NSSnapshotEventType(rawValue: 1 << 1)
    public static let undoDeletion = NSSnapshotEventType(rawValue: 1 << 2)
    public static let undoUpdate = NSSnapshotEventType(rawValue: 1 << 3)
    public static let rollback = NSSnapshotEventType(rawValue: 1 << 4)
    public static let refresh = NSSnapshotEventType(rawValue: 1 << 5)
    public static let mergePolicy = NSSnapshotEventType(rawValue: 1 << 6)
}

/// Creation of managed objects by contexts (materializing existing objects as faults).
enum ManagedObjectFactory {
    /// The ID of the object being materialized on this thread, unretained: the initializer runs synchronously on
    /// the thread that asked for the object (a `@TaskLocal` allocated for each binding: 3 % of a fetch).
    private static let materializing = ThreadLocalPointer()
    /// The ID the object being materialized gets.
    static var pendingObjectID: NSManagedObjectID? {
        materializing.value.map { Unmanaged<NSManagedObjectID>.fromOpaque($0).takeUnretainedValue() }
    }
    static var isMaterializing: Bool { materializing.value != nil }

    /// A fault for `objectID`, of the entity's managed object class (as `classes`, the context's cache, has it).
    static func makeFault(for objectID: NSManagedObjectID, classes: FaultClassCache) -> NSManagedObject {
        let objectClass = classes.objectClass(for: objectID.entity)
        let enclosing = materializing.value
        materializing.value = UnsafeRawPointer(Unmanaged.passUnretained(objectID).toOpaque())
        defer { materializing.value = enclosing }
        return withExtendedLifetime(objectID) { objectClass.init(entity: objectID.entity, insertInto: nil) }
    }
}
