/// Derived attributes (`NSDerivedAttributeDescription`): values a store computes from other values of the
/// object when it saves.
enum DerivedAttributes {
    /// A derivation the SQLite store maintains with Apple's triggers: `<to-many>.@count` over a one-to-many
    /// relationship (store-format.md §4). Other derivations are computed in Swift at save.
    struct CountDerivation {
        var attribute: NSDerivedAttributeDescription
        var relationship: NSRelationshipDescription
        var inverse: NSRelationshipDescription
    }

    /// The `.@count` derivation of an attribute, if that is what it is.
    static func countDerivation(of attribute: NSDerivedAttributeDescription) -> CountDerivation? {
        guard let expression = attribute.derivationExpression else { return nil }
        var path: String?
        switch expression.node {
        case .keyPath(let operand, let keyPath):
            if case .evaluatedObject = operand.node, keyPath.hasSuffix(".@count") { path = String(keyPath.dropLast(".@count".count)) }
        case .function(nil, "count:", let arguments):
            if arguments.count == 1, case .keyPath(let operand, let keyPath) = arguments[0].node, case .evaluatedObject = operand.node { path = keyPath }
        default:
            break
        }
        guard let path, !path.contains("."),
            let relationship = attribute.entity.relationshipsByName[path], relationship.isToMany,
            let inverse = relationship.inverseRelationship, !inverse.isToMany
        else { return nil }
        return CountDerivation(attribute: attribute, relationship: relationship, inverse: inverse)
    }

    /// The value of a derived attribute for an object seen through key-value coding.
    static func value(of attribute: NSDerivedAttributeDescription, for object: KeyValueCoding) -> StoredValue {
        guard let expression = attribute.derivationExpression,
            let value = try? expression.evaluatedValue(with: object, context: nil)
        else { return .null }
        return ValueConversion.storedValue(fromKVC: value, for: attribute) ?? .null
    }

    /// The derived attributes of an entity (inherited ones included), by attribute slot.
    static func slots(of entity: NSEntityDescription) -> [(Int, NSDerivedAttributeDescription)] {
        entity.layout.attributes.enumerated().compactMap { index, attribute in
            (attribute as? NSDerivedAttributeDescription).map { (index, $0) }
        }
    }
}

/// What a store reports after a save: objects whose stored values it changed itself (derived attributes), which
/// contexts must refresh, and inserted objects it gave other IDs than the ones they were saved under (a store that
/// chooses its keys while saving, as SwiftData's custom data stores do), which the saving context moves.
struct StoreSaveResult {
    var objectsChangedByStore: Set<NSManagedObjectID> = []
    var movedObjectIDs: [NSManagedObjectID: NSManagedObjectID] = [:]
}
