// Structural comparison of two models, property by property: what "decodes back to an equal model" means for
// the compiled-model codec (a store writes its model cache only when the archive reads back equal), and what the
// `.mom` round-trip tests check.

import Foundation

/// Lists the differences between two models (empty when they are structurally equal).
///
/// ```swift
/// let decoded = try CompiledModelReader.model(fromArchive: CompiledModelWriter.archive(model))
/// ModelComparison.differences(model, decoded)   // []
/// ```
enum ModelComparison {
    /// Human-readable differences ("entity 'Mood': attribute 'date': isOptional true ≠ false"); empty if equal.
    static func differences(_ left: NSManagedObjectModel, _ right: NSManagedObjectModel) -> [String] {
        var result: [String] = []
        func check<T: Equatable>(_ what: String, _ a: T, _ b: T) {
            if a != b { result.append("\(what): \(a) ≠ \(b)") }
        }
        check("entity names", Set(left.entitiesByName.keys), Set(right.entitiesByName.keys))
        check("version identifiers", Set(left._versionIdentifiers.map { "\($0)" }), Set(right._versionIdentifiers.map { "\($0)" }))
        check("configurations", Dictionary(left._configurations.map { ($0.name, Set($0.entityNames)) }, uniquingKeysWith: { a, _ in a }),
              Dictionary(right._configurations.map { ($0.name, Set($0.entityNames)) }, uniquingKeysWith: { a, _ in a }))
        let leftTemplates = Dictionary(left._fetchRequestTemplates.map { ($0.name, $0.template) }, uniquingKeysWith: { a, _ in a })
        let rightTemplates = Dictionary(right._fetchRequestTemplates.map { ($0.name, $0.template) }, uniquingKeysWith: { a, _ in a })
        check("fetch request templates", Set(leftTemplates.keys), Set(rightTemplates.keys))
        for (name, template) in leftTemplates {
            guard let other = rightTemplates[name] else { continue }
            check("template '\(name)' entity", template.entityName, other.entityName)
            check("template '\(name)' predicate", normalizedPredicate(template.predicateFormat), normalizedPredicate(other.predicateFormat))
            for key in ["fetchLimit", "fetchBatchSize"] { check("template '\(name)' \(key)", template.settings[key] ?? "0", other.settings[key] ?? "0") }
        }
        // Entity hashes once per model: an unfrozen model recomputes them (super-entities included) on every call.
        let leftHashes = left.entityVersionHashesByName, rightHashes = right.entityVersionHashesByName
        for (name, entity) in left.entitiesByName {
            guard let other = right.entitiesByName[name] else { continue }
            check("entity '\(name)': version hash", leftHashes[name], rightHashes[name])
            result += entityDifferences(entity, other).map { "entity '\(name)': \($0)" }
        }
        return result.sorted()
    }

    /// A predicate format in the formatter's canonical spelling (so that `a==1` and `a == 1` compare equal).
    static func normalizedPredicate(_ format: String?) -> String? {
        guard let format else { return nil }
        return (try? NSPredicate(validatingFormat: format, argumentArray: nil))?.predicateFormat ?? format
    }

    static func normalizedExpression(_ format: String?) -> String? {
        guard let format else { return nil }
        return (try? NSExpression(validatingFormat: format, argumentArray: nil))?.description ?? format
    }

    static func userInfoText(_ userInfo: [AnyHashable: Any]?) -> String {
        let entries = (userInfo ?? [:]).map { "\($0.key)=\($0.value)" }.sorted()
        return entries.joined(separator: ",")
    }

    private static func entityDifferences(_ a: NSEntityDescription, _ b: NSEntityDescription) -> [String] {
        var result: [String] = []
        func check<T: Equatable>(_ what: String, _ x: T, _ y: T) {
            if x != y { result.append("\(what): \(x) ≠ \(y)") }
        }
        check("class name", a._managedObjectClassName, b._managedObjectClassName)
        check("isAbstract", a._isAbstract, b._isAbstract)
        check("superentity", a._superentity?._name, b._superentity?._name)
        check("subentities", Set(a._subentities.compactMap(\._name)), Set(b._subentities.compactMap(\._name)))
        check("versionHashModifier", a._versionHashModifier, b._versionHashModifier)
        check("renamingIdentifier", a._renamingIdentifier ?? a._name, b._renamingIdentifier ?? b._name)
        check("userInfo", userInfoText(a._userInfo), userInfoText(b._userInfo))
        check("uniqueness constraints", a.uniquenessConstraintNames.filter { !$0.isEmpty }, b.uniquenessConstraintNames.filter { !$0.isEmpty })
        func compound(_ entity: NSEntityDescription) -> [[String]] {
            entity._compoundIndexes.map { $0.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?._name } }
        }
        check("compound indexes", compound(a), compound(b))
        func indexes(_ entity: NSEntityDescription) -> [String] {
            entity._indexes.map { index in
                let elements = index._elements.map { "\($0.propertyName ?? "")/\($0._collationType.rawValue)/\($0._isAscending)" }
                return "\(index._name)(\(elements.joined(separator: ",")))[\(normalizedPredicate(index._partialIndexPredicateFormat) ?? "")]"
            }
        }
        check("fetch indexes", indexes(a), indexes(b))
        let aProperties = Dictionary(a._ownProperties.map { ($0._name, $0) }, uniquingKeysWith: { x, _ in x })
        let bProperties = Dictionary(b._ownProperties.map { ($0._name, $0) }, uniquingKeysWith: { x, _ in x })
        check("own properties", Set(aProperties.keys), Set(bProperties.keys))
        for (name, property) in aProperties {
            guard let other = bProperties[name] else { continue }
            result += propertyDifferences(property, other).map { "\(property.kindName) '\(name)': \($0)" }
        }
        return result
    }

    private static func propertyDifferences(_ a: NSPropertyDescription, _ b: NSPropertyDescription) -> [String] {
        var result: [String] = []
        func check<T: Equatable>(_ what: String, _ x: T, _ y: T) {
            if x != y { result.append("\(what): \(x) ≠ \(y)") }
        }
        check("kind", String(describing: type(of: a)), String(describing: type(of: b)))
        check("isOptional", a._isOptional, b._isOptional)
        check("isTransient", a._isTransient, b._isTransient)
        check("isIndexed", a._isIndexed, b._isIndexed)
        check("isIndexedBySpotlight", a._isIndexedBySpotlight, b._isIndexedBySpotlight)
        check("isStoredInExternalRecord", a._isStoredInExternalRecord, b._isStoredInExternalRecord)
        check("versionHashModifier", a._versionHashModifier, b._versionHashModifier)
        check("renamingIdentifier", a._renamingIdentifier ?? a._name, b._renamingIdentifier ?? b._name)
        check("userInfo", userInfoText(a._userInfo), userInfoText(b._userInfo))
        check("validation predicates", a._validationRules.map(\.predicate.predicateFormat), b._validationRules.map(\.predicate.predicateFormat))
        check("validation warnings", a._validationRules.map { "\($0.warning)" }, b._validationRules.map { "\($0.warning)" })
        check("version hash", a.versionHash, b.versionHash)
        switch (a, b) {
        case let (x as NSAttributeDescription, y as NSAttributeDescription):
            check("attributeType", x._attributeType, y._attributeType)
            check("attributeValueClassName", x._attributeValueClassName, y._attributeValueClassName)
            check("valueTransformerName", x._valueTransformerName, y._valueTransformerName)
            check("allowsExternalBinaryDataStorage", x._allowsExternalBinaryDataStorage, y._allowsExternalBinaryDataStorage)
            check("preservesValueInHistoryOnDeletion", x._preservesValueInHistoryOnDeletion, y._preservesValueInHistoryOnDeletion)
            check("allowsCloudEncryption", x._allowsCloudEncryption, y._allowsCloudEncryption)
            check("defaultValue", x._defaultValue.map { "\($0)" }, y._defaultValue.map { "\($0)" })
            if let xd = x as? NSDerivedAttributeDescription, let yd = y as? NSDerivedAttributeDescription {
                check("derivationExpression", normalizedExpression(xd._derivationExpressionFormat), normalizedExpression(yd._derivationExpressionFormat))
            }
            if let xc = x as? NSCompositeAttributeDescription, let yc = y as? NSCompositeAttributeDescription {
                check("composite elements", xc._elements.map(\._name), yc._elements.map(\._name))
            }
        case let (x as NSRelationshipDescription, y as NSRelationshipDescription):
            check("destination", x.destinationEntityName, y.destinationEntityName)
            check("inverse", x.inverseRelationshipName, y.inverseRelationshipName)
            check("minCount", x._minCount, y._minCount)
            check("maxCount", x._maxCount, y._maxCount)
            check("deleteRule", x._deleteRule, y._deleteRule)
            check("isOrdered", x._isOrdered, y._isOrdered)
        case let (x as NSFetchedPropertyDescription, y as NSFetchedPropertyDescription):
            check("fetch entity", x._fetchRequestEntityName, y._fetchRequestEntityName)
            check("fetch predicate", normalizedPredicate(x._fetchRequestPredicateFormat), normalizedPredicate(y._fetchRequestPredicateFormat))
            check("fetch sort descriptors", x._fetchRequestSortDescriptors?.map(\.description) ?? [], y._fetchRequestSortDescriptors?.map(\.description) ?? [])
        default:
            break
        }
        return result
    }
}
