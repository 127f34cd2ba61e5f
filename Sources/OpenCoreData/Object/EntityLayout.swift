/// The precomputed shape of an entity's objects: every property's slot, so that values live in arrays and
/// no per-access dictionary of descriptions is built. Computed once per entity (models are frozen before any
/// object of theirs exists).
final class EntityLayout: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; descriptions are Sendable and frozen.

    /// Where a property's value lives in an object.
    enum Slot {
        /// `attributes[index]`.
        case attribute(Int, NSAttributeDescription)
        /// `toOne[index]`.
        case toOne(Int, NSRelationshipDescription)
        /// `toMany[index]`.
        case toMany(Int, NSRelationshipDescription)
        /// A fetched property, evaluated on access.
        case fetched(NSFetchedPropertyDescription)
    }

    let entity: NSEntityDescription
    /// Slot by property name (inherited properties included).
    let slots: SlotTable
    /// The attributes in slot order.
    let attributes: [NSAttributeDescription]
    /// The to-one relationships in slot order.
    let toOneRelationships: [NSRelationshipDescription]
    /// The to-many relationships in slot order.
    let toManyRelationships: [NSRelationshipDescription]
    /// Every relationship, in the entity's property order (what a delete's rules go through).
    let relationships: [NSRelationshipDescription]
    /// The to-one slots whose inverse is a to-many (what a merge realigns the inverses of).
    let toOnesWithToManyInverse: [Int]
    /// The default attribute values of a newly inserted object, in slot order.
    let defaultAttributes: [StoredValue]
    /// The defaults of transformable attributes (object form), by slot.
    let transformableDefaults: [Int: Any]
    /// A fault's values, shared by every fault of the entity (arrays are copied on write).
    let faultAttributes: [StoredValue]
    let faultToOneValues: [NSManagedObject.ToOneValue]
    let faultToManyValues: [NSManagedObject.ToManyValue]
    /// Whether some attribute is transient (its value is the object's, not the row's).
    let hasTransientAttributes: Bool
    /// Whether the attribute in each slot is transient (what a setter checks, without retaining the description).
    let attributeIsTransient: [Bool]
    /// The default value of each transient attribute that is not transformable, by slot (stored form): what those
    /// attributes are when an object's values are loaded (a transformable's default is in `transformableDefaults`).
    let transientDefaults: [(slot: Int, value: StoredValue)]
    /// Whether this is the layout of key path probes (``KeyPathRecorder/probeEntity``), which no other object shares.
    let isKeyPathProbe: Bool
    /// The attributes and relationships in the entity's property order, with their slots: what a save validates.
    /// `rules` says what `NSManagedObject`'s own `validateValue(_:forKey:)` can reject.
    let validatedProperties: [(name: String, slot: Slot, rules: ValidationRuleKind)]

    /// What the base `validateValue(_:forKey:)` checks of a property.
    enum ValidationRuleKind {
        /// Nothing: it accepts any value (an optional attribute without validation predicates that is not
        /// transformable, an optional relationship without count limits).
        case none
        /// Only that an attribute has a value (a required attribute without validation predicates, not transformable).
        case required
        /// More (predicates, counts, a required relationship, a transformable value).
        case some
    }

    init(entity: NSEntityDescription) {
        self.entity = entity
        isKeyPathProbe = entity === KeyPathRecorder.probeEntity
        var slots: [String: Slot] = [:]
        var attributes: [NSAttributeDescription] = []
        var toOne: [NSRelationshipDescription] = []
        var toMany: [NSRelationshipDescription] = []
        var relationships: [NSRelationshipDescription] = []
        for property in entity.properties {
            switch property {
            case let attribute as NSAttributeDescription:
                slots[attribute.name] = .attribute(attributes.count, attribute)
                attributes.append(attribute)
            case let relationship as NSRelationshipDescription:
                relationships.append(relationship)
                if relationship.isToMany {
                    slots[relationship.name] = .toMany(toMany.count, relationship)
                    toMany.append(relationship)
                } else {
                    slots[relationship.name] = .toOne(toOne.count, relationship)
                    toOne.append(relationship)
                }
            case let fetched as NSFetchedPropertyDescription:
                slots[fetched.name] = .fetched(fetched)
            default:
                continue
            }
        }
        self.slots = SlotTable(slots)
        self.attributes = attributes
        self.toOneRelationships = toOne
        self.toOnesWithToManyInverse = toOne.indices.filter { toOne[$0].inverseRelationship?.isToMany == true }
        self.relationships = relationships
        self.toManyRelationships = toMany
        var transformableDefaults: [Int: Any] = [:]
        let defaultAttributes: [StoredValue] = attributes.enumerated().map { index, attribute in
            guard let value = attribute.defaultValue else { return .null }
            if attribute.attributeType == .transformableAttributeType {
                transformableDefaults[index] = value
                return .null
            }
            return ValueConversion.storedValue(fromKVC: value, for: attribute) ?? .null
        }
        self.defaultAttributes = defaultAttributes
        self.transformableDefaults = transformableDefaults
        faultAttributes = Array(repeating: .null, count: attributes.count)
        faultToOneValues = Array(repeating: .none, count: toOne.count)
        faultToManyValues = Array(repeating: .fault, count: toMany.count)
        hasTransientAttributes = attributes.contains(where: \.isTransient)
        attributeIsTransient = attributes.map(\.isTransient)
        transientDefaults = attributes.indices.compactMap { index in
            guard attributes[index].isTransient, attributes[index].attributeType != .transformableAttributeType else { return nil }
            return (index, defaultAttributes[index])
        }
        validatedProperties = entity.properties.compactMap { property in
            property is NSFetchedPropertyDescription ? nil : slots[property.name].map { (property.name, $0, Self.rules(of: $0)) }
        }
    }

    /// What the base `validateValue(_:forKey:)` can reject of the property in `slot`.
    private static func rules(of slot: Slot) -> ValidationRuleKind {
        switch slot {
        case .attribute(_, let attribute):
            if attribute.attributeType == .transformableAttributeType || !attribute.validationPredicates.isEmpty { return .some }
            return attribute.isOptional ? .none : .required
        case .toOne(_, let relationship), .toMany(_, let relationship):
            return !relationship.isOptional || relationship.minCount > 0 || (relationship.isToMany && relationship.maxCount > 0) ? .some : .none
        case .fetched:
            return .none
        }
    }

    /// The number of stored properties (attributes and relationships).
    var propertyCount: Int { attributes.count + toOneRelationships.count + toManyRelationships.count }

    /// An empty snapshot for this entity (every value null).
    func emptySnapshot() -> ObjectSnapshot {
        ObjectSnapshot(attributes: Array(repeating: .null, count: attributes.count),
                       toOne: Array(repeating: nil, count: toOneRelationships.count), version: 0)
    }
}

extension NSEntityDescription {
    /// The entity's object layout, computed once (the model is frozen when the first object exists).
    var layout: EntityLayout {
        layoutCache.value { EntityLayout(entity: self) }
    }
}

/// An entity's property slots by name. Accessors look a key up on every property access, so a lookup first
/// compares the key's 16 bytes with each name's (a key written as a literal at the call site and a short
/// name are both stored inline in the `String`, so equal names have equal bytes; equal bytes always mean equal
/// strings), and hashes the key only when that finds nothing. Each name also has a position (`0..<count`), which
/// per-object tables indexed by property use (``EventOldValues``). A class: read on every property access, a
/// struct of five collections was copied out of its layout, five retains and releases, for each look-up.
final class SlotTable: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; the slots' descriptions are Sendable and frozen.
    private let positionByName: [String: Int]
    private let names: [String]
    /// Each name's 16 bytes, for the unsafe look-up (empty when it is off: Unsafe/SlotTable+NameWords.swift).
    let nameBits: [(UInt64, UInt64)]
    private let slotsInOrder: [EntityLayout.Slot]
    /// By position: the attribute index of a non-transformable attribute, -1 for other properties (what the typed
    /// getters read, without copying the slot and retaining its description).
    private let plainAttributeIndexes: [Int]

    init(_ slots: [String: EntityLayout.Slot]) {
        // Fresh copies: a name of up to 15 UTF-8 bytes becomes an inline (small) string.
        names = slots.keys.map { String(decoding: Array($0.utf8), as: UTF8.self) }
        positionByName = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        nameBits = Self.nameWords(of: names)
        slotsInOrder = names.map { slots[$0]! }
        plainAttributeIndexes = slotsInOrder.map { slot in
            guard case .attribute(let index, let attribute) = slot, attribute.attributeType != .transformableAttributeType else { return -1 }
            return index
        }
    }

    /// The attribute index of `key` if it names an attribute that is not transformable.
    @inline(__always)
    func plainAttributeIndex(of key: String) -> Int? {
        guard let position = position(of: key) else { return nil }
        return plainAttributeIndex(at: position)
    }

    /// The attribute index of the property at `position` if it is an attribute that is not transformable.
    @inline(__always)
    func plainAttributeIndex(at position: Int) -> Int? {
        let index = plainAttributeIndexes[position]
        return index >= 0 ? index : nil
    }

    subscript(key: String) -> EntityLayout.Slot? {
        position(of: key).map { slotsInOrder[$0] }
    }

    /// The position of a property name, nil if the entity has no such property.
    func position(of key: String) -> Int? {
        if !nameBits.isEmpty, let position = positionComparingWords(of: key) { return position }
        return positionByName[key]
    }

    /// The property name at `position`.
    func name(at position: Int) -> String { names[position] }

    /// Whether look-ups compare names as raw words first (the unsafe fast path; see ``UnsafeFastPaths``).
    var comparesNameWords: Bool { !nameBits.isEmpty }

    /// The number of properties.
    var count: Int { names.count }

    /// The property names.
    var keys: [String] { names }
}
