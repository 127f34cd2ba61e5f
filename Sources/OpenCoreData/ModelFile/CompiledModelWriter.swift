// Writes an NSManagedObjectModel in Apple's compiled form: the NSKeyedArchiver layout Core Data itself writes
// into `Z_MODELCACHE` (research/store-format.md §2.3, read back by `CompiledModelReader`), used for `.mom` files
// and for the model cache of the stores OpenCoreData creates.
//
// The layout follows the corpus model caches: the entities in an NSKnownKeysDictionary1 sorted by name, each
// entity's NSProperties listing inherited properties (as copies whose NSEntity is the subentity) before its
// own, property flags in `_P` (bit 0 always, 1 optional, 2 read-only, 3 transient, 4 no validation predicates,
// 5 no validation warnings, 6 no user info, 7 no version hash modifier, 10 ordered, 11 cloud encryption), and
// attribute flags in NSFlagsKey (4 external binary storage, 16 preserve after deletion). Values the corpus does
// not show (spotlight and truth-file flags, composite elements) use keys of the same style; whether Apple's
// Core Data reads an archive written here is not verified (DEVIATIONS.md).

import Foundation

/// Encodes a model as a compiled-model archive.
///
/// ```swift
/// let mom = try CompiledModelWriter.archive(model)         // the contents of a .mom file
/// let cache = try CompiledModelWriter.modelCache(model)    // Z_MODELCACHE.Z_CONTENT
/// ```
enum CompiledModelWriter {
    /// The uncompressed archive. Throws `NSCoderInvalidValueError` (4866) for what Apple cannot archive either:
    /// block predicates or expressions in the model.
    static func archive(_ model: NSManagedObjectModel) throws -> Data {
        var encoder = Encoder()
        do {
            let root = try encoder.encodeModel(model)
            return encoder.writer.archive(root: root)
        } catch {
            throw CoreDataError.make(CocoaError.coderInvalidValue.rawValue, "Cannot archive \(model.debugName): \(error.description)")
        }
    }

    /// The archive compressed as a model cache (raw DEFLATE).
    static func modelCache(_ model: NSManagedObjectModel) throws -> Data {
        Deflate.deflate(try archive(model))
    }

    private struct Encoder {
        var writer = KeyedArchiveWriter()
        var modelReference = KeyedArchiveWriter.null
        var model: NSManagedObjectModel?

        static let entityClasses = ["NSEntityDescription", "NSObject"]

        mutating func encodeModel(_ model: NSManagedObjectModel) throws(KeyedArchiveError) -> PropertyListObject {
            self.model = model
            let rootIndex = writer.reserve(model)
            modelReference = .uid(UInt64(rootIndex))
            let entities = model._entities.sorted { ($0._name ?? "").utf8.lexicographicallyPrecedes(($1._name ?? "").utf8) }
            for entity in entities { _ = writer.reserve(entity) }
            for entity in model._entities {
                for property in entity._ownProperties { _ = writer.reserve(property) }
            }
            var entityReferences: [PropertyListObject] = []
            for entity in entities { entityReferences.append(try encodeEntity(entity)) }
            let names = entities.map { writer.string($0._name ?? "") }
            let keys = writer.array(names)
            let mapping = writer.object(className: "NSKnownKeysMappingStrategy1",
                                        classes: ["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"],
                                        fields: ["keys": keys, "length": .integer(Int64(names.count)), "version": .integer(1)])
            let values = writer.array(entityReferences)
            let entityDictionary = writer.object(
                className: "NSKnownKeysDictionary1",
                classes: ["NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"],
                fields: ["values": values, "searchMapping": mapping, "version": .integer(1),
                         "emptyToken": writer.string("__empty_slot_token_4c24_98dc_ac1e_b773__")])
            var identifiers: [PropertyListObject] = []
            for identifier in model._versionIdentifiers.sorted(by: { "\($0)" < "\($1)" }) {
                guard let encoded = writer.foundationValue(identifier.base) else {
                    throw KeyedArchiveError(description: "the version identifier \(identifier) is not a Foundation value")
                }
                identifiers.append(encoded)
            }
            var fields: [String: PropertyListObject] = [
                "NSEntities": entityDictionary,
                "NSVersionIdentifiers": writer.set(identifiers),
                "NSFetchRequestTemplates": KeyedArchiveWriter.null,
            ]
            if !model._fetchRequestTemplates.isEmpty {
                var entries: [(key: PropertyListObject, value: PropertyListObject)] = []
                for template in model._fetchRequestTemplates {
                    entries.append((writer.string(template.name), try encodeFetchRequest(template.template)))
                }
                fields["NSFetchRequestTemplates"] = writer.dictionary(entries)
            }
            if !model._configurations.isEmpty {
                var entries: [(key: PropertyListObject, value: PropertyListObject)] = []
                for configuration in model._configurations {
                    let members = configuration.entityNames.compactMap { model.entitiesByName[$0] }.compactMap { writer.existingReference(for: $0) }
                    entries.append((writer.string(configuration.name), writer.set(members)))
                }
                fields["NSConfigurations"] = writer.dictionary(entries, className: "NSMutableDictionary")
            }
            writer.fill(rootIndex, className: "NSManagedObjectModel", classes: ["NSManagedObjectModel", "NSObject"], fields: fields)
            return modelReference
        }

        func reference(_ object: AnyObject?) -> PropertyListObject {
            object.flatMap { writer.existingReference(for: $0) } ?? KeyedArchiveWriter.null
        }

        static func renamingIdentifier(_ identifier: String?, name: String) -> String { identifier ?? name }

        mutating func encodeEntity(_ entity: NSEntityDescription) throws(KeyedArchiveError) -> PropertyListObject {
            guard case .uid(let slot)? = writer.existingReference(for: entity) else { throw KeyedArchiveError(description: "entity not reserved") }
            let name = entity._name ?? ""
            var properties: [(key: PropertyListObject, value: PropertyListObject)] = []
            // Inherited properties first, as copies owned by this entity; then its own.
            var ancestors: [NSEntityDescription] = []
            var current = entity._superentity
            while let parent = current { ancestors.insert(parent, at: 0); current = parent._superentity }
            let selfReference = PropertyListObject.uid(slot)
            for ancestor in ancestors {
                for property in ancestor._ownProperties {
                    properties.append((writer.string(property._name), try encodeProperty(property, entity: selfReference, slot: nil)))
                }
            }
            for property in entity._ownProperties {
                guard case .uid(let propertySlot)? = writer.existingReference(for: property) else { throw KeyedArchiveError(description: "property not reserved") }
                properties.append((writer.string(property._name), try encodeProperty(property, entity: selfReference, slot: Int(propertySlot))))
            }
            var subentities: [(key: PropertyListObject, value: PropertyListObject)] = []
            for subentity in entity._subentities { subentities.append((writer.string(subentity._name ?? ""), reference(subentity))) }
            var fields: [String: PropertyListObject] = [
                "NSEntityName": writer.string(name),
                "NSClassNameForEntity": writer.optionalString(entity._managedObjectClassName),
                "NSSuperentity": reference(entity._superentity),
                "NSSubentities": writer.dictionary(subentities, className: "NSMutableDictionary"),
                "NSProperties": writer.dictionary(properties, className: "NSMutableDictionary"),
                "NSUserInfo": try encodeUserInfo(entity._userInfo ?? [:]),
                "NSVersionHashModifier": writer.optionalString(entity._versionHashModifier),
                "NSRenamingIdentifier": writer.string(Self.renamingIdentifier(entity._renamingIdentifier, name: name)),
                "NSManagedObjectModel": modelReference,
            ]
            if entity._isAbstract { fields["NSIsAbstract"] = .boolean(true) }
            let constraints = entity.uniquenessConstraintNames.filter { !$0.isEmpty }
            if !constraints.isEmpty { fields["NSUniqueTuples"] = nameLists(constraints) }
            let compound = entity._compoundIndexes.map { list in list.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?._name } }
            if !compound.isEmpty { fields["NSCompoundIndexes"] = nameLists(compound) }
            if !entity._indexes.isEmpty {
                var indexes: [PropertyListObject] = []
                for index in entity._indexes { indexes.append(try encodeFetchIndex(index, entity: selfReference)) }
                fields["NSFetchIndexDescriptions"] = writer.array(indexes, className: "NSMutableArray")
            }
            writer.fill(Int(slot), className: "NSEntityDescription", classes: Self.entityClasses, fields: fields)
            return selfReference
        }

        mutating func nameLists(_ lists: [[String]]) -> PropertyListObject {
            let inner = lists.map { list in writer.array(list.map { writer.string($0) }, className: "NSMutableArray") }
            return writer.array(inner)
        }

        mutating func encodeUserInfo(_ userInfo: [AnyHashable: Any]) throws(KeyedArchiveError) -> PropertyListObject {
            guard let encoded = writer.foundationValue(userInfo) else { throw KeyedArchiveError(description: "user info holds values that are not Foundation values") }
            return encoded
        }

        mutating func encodeFetchIndex(_ index: NSFetchIndexDescription, entity: PropertyListObject) throws(KeyedArchiveError) -> PropertyListObject {
            let slot = writer.reserve(index)
            var elements: [PropertyListObject] = []
            for element in index._elements {
                elements.append(writer.object(className: "NSFetchIndexElementDescription", classes: ["NSFetchIndexElementDescription", "NSObject"], fields: [
                    "NSPropertyName": writer.optionalString(element.propertyName),
                    "NSFetchIndexElementType": .integer(Int64(element._collationType.rawValue)),
                    "NSAscending": .boolean(element._isAscending),
                    "NSFetchIndexDescription": .uid(UInt64(slot)),
                ]))
            }
            var partial = KeyedArchiveWriter.null
            if let format = index._partialIndexPredicateFormat {
                guard let predicate = try? NSPredicate(validatingFormat: format, argumentArray: nil) else {
                    throw KeyedArchiveError(description: "the partial index predicate of '\(index._name)' does not parse")
                }
                partial = try PredicateArchiving.encode(predicate, into: &writer)
            }
            let list = writer.array(elements, className: "NSMutableArray")
            writer.fill(slot, className: "NSFetchIndexDescription", classes: ["NSFetchIndexDescription", "NSObject"], fields: [
                "NSIndexName": writer.string(index._name), "NSIndexElements": list, "NSPartialIndexPredicate": partial, "NSEntity": entity,
            ])
            return .uid(UInt64(slot))
        }

        // MARK: Properties

        /// `_P`: the property flag word Core Data writes (bit meanings inferred from the corpus caches).
        static func flagWord(_ property: NSPropertyDescription) -> Int64 {
            var flags: Int64 = 1
            if property._isOptional { flags |= 2 }
            if property.isReadOnlyForHashing || property is NSFetchedPropertyDescription { flags |= 4 }
            if property._isTransient { flags |= 8 }
            if property._validationRules.isEmpty { flags |= 16 | 32 }
            if (property._userInfo ?? [:]).isEmpty { flags |= 64 }
            if property._versionHashModifier == nil { flags |= 128 }
            if (property as? NSRelationshipDescription)?._isOrdered == true { flags |= 1024 }
            if (property as? NSAttributeDescription)?._allowsCloudEncryption == true { flags |= 2048 }
            return flags
        }

        mutating func encodeProperty(_ property: NSPropertyDescription, entity: PropertyListObject, slot: Int?) throws(KeyedArchiveError) -> PropertyListObject {
            let index = slot ?? { let index = writer.objects.count; _ = writer.scalarObject(.null); return index }()
            var fields: [String: PropertyListObject] = [
                "NSPropertyName": writer.string(property._name),
                "NSEntity": entity,
                "NSRenamingIdentifier": writer.string(Self.renamingIdentifier(property._renamingIdentifier, name: property._name)),
                "_P": .integer(Self.flagWord(property)),
            ]
            if property._isOptional { fields["NSIsOptional"] = .boolean(true) }
            if property._isTransient { fields["NSIsTransient"] = .boolean(true) }
            if property._isIndexed { fields["NSIsIndexed"] = .boolean(true) }
            if property._isIndexedBySpotlight { fields["NSIsIndexedBySpotlight"] = .boolean(true) }
            if property._isStoredInExternalRecord { fields["NSIsStoredInExternalRecord"] = .boolean(true) }
            if let modifier = property._versionHashModifier { fields["NSVersionHashModifier"] = writer.string(modifier) }
            if let userInfo = property._userInfo, !userInfo.isEmpty { fields["NSUserInfo"] = try encodeUserInfo(userInfo) }
            if !property._validationRules.isEmpty {
                var predicates: [PropertyListObject] = [], warnings: [PropertyListObject] = []
                for rule in property._validationRules {
                    predicates.append(try PredicateArchiving.encode(rule.predicate, into: &writer))
                    guard let warning = writer.foundationValue(rule.warning) else { throw KeyedArchiveError(description: "a validation warning is not a Foundation value") }
                    warnings.append(warning)
                }
                fields["NSValidationPredicates"] = writer.array(predicates)
                fields["NSValidationWarnings"] = writer.array(warnings)
            }
            let className: String
            var classes = ["NSPropertyDescription", "NSObject"]
            switch property {
            case let attribute as NSAttributeDescription:
                try encodeAttributeFields(attribute, into: &fields, entity: entity)
                classes.insert("NSAttributeDescription", at: 0)
                if attribute is NSDerivedAttributeDescription {
                    className = "NSDerivedAttributeDescription"
                } else if attribute is NSCompositeAttributeDescription {
                    className = "NSCompositeAttributeDescription"
                } else {
                    className = "NSAttributeDescription"
                    classes.removeFirst()
                }
            case let relationship as NSRelationshipDescription:
                className = "NSRelationshipDescription"
                fields["NSDestinationEntity"] = reference(relationship._destinationEntity)
                fields["_NSDestinationEntityName"] = writer.optionalString(relationship.destinationEntityName)
                fields["NSInverseRelationship"] = reference(relationship._inverseRelationship)
                fields["_NSInverseRelationshipName"] = writer.optionalString(relationship.inverseRelationshipName)
                fields["NSMinCount"] = .integer(Int64(relationship._minCount))
                fields["NSMaxCount"] = .integer(Int64(relationship._maxCount))
                fields["NSDeleteRule"] = .integer(Int64(relationship._deleteRule.rawValue))
                if relationship._isOrdered { fields["NSIsOrdered"] = .boolean(true) }
            case let fetched as NSFetchedPropertyDescription:
                className = "NSFetchedPropertyDescription"
                fields["NSIsReadOnly"] = .boolean(true)
                fields["_NSFetchRequestEntityName"] = writer.optionalString(fetched._fetchRequestEntityName)
                if let entityName = fetched._fetchRequestEntityName {
                    let template = FetchRequestTemplate(entityName: entityName, predicateFormat: fetched._fetchRequestPredicateFormat)
                    fields["NSFetchRequest"] = try encodeFetchRequest(template)
                }
            default:
                throw KeyedArchiveError(description: "property '\(property._name)' is of an unknown kind")
            }
            writer.fill(index, className: className, classes: [className] + classes, fields: fields)
            return .uid(UInt64(index))
        }

        mutating func encodeAttributeFields(_ attribute: NSAttributeDescription, into fields: inout [String: PropertyListObject],
                                            entity: PropertyListObject) throws(KeyedArchiveError) {
            fields["NSAttributeType"] = .integer(Int64(attribute._attributeType.rawValue))
            fields["NSAttributeValueClassName"] = writer.optionalString(attribute._attributeValueClassName)
            fields["NSValueTransformerName"] = writer.optionalString(attribute._valueTransformerName)
            var flags: Int64 = 0
            if attribute._allowsExternalBinaryDataStorage { flags |= 4 }
            if attribute._preservesValueInHistoryOnDeletion { flags |= 16 }
            fields["NSFlagsKey"] = .integer(flags)
            if attribute._allowsCloudEncryption { fields["NSAllowsCloudEncryption"] = .boolean(true) }
            // A default of an app's own class (a transformable's) has no archivable form here and is left out.
            fields["NSDefaultValue"] = attribute._defaultValue.flatMap { writer.foundationValue($0) } ?? KeyedArchiveWriter.null
            if let derived = attribute as? NSDerivedAttributeDescription {
                guard let expression = derived.derivationExpression else {
                    throw KeyedArchiveError(description: "derived attribute '\(attribute._name)' has no valid derivation expression")
                }
                fields["NSDerivationExpression"] = try PredicateArchiving.encode(expression, into: &writer)
                fields["NSFilteringPredicate"] = KeyedArchiveWriter.null
                fields["NSIsReadOnly"] = .boolean(true)
            }
            if let composite = attribute as? NSCompositeAttributeDescription {
                var elements: [PropertyListObject] = []
                for element in composite._elements { elements.append(try encodeProperty(element, entity: entity, slot: nil)) }
                fields["NSElements"] = writer.array(elements)
            }
        }

        mutating func encodeFetchRequest(_ template: FetchRequestTemplate) throws(KeyedArchiveError) -> PropertyListObject {
            var predicate = KeyedArchiveWriter.null
            if let format = template.predicateFormat {
                guard let parsed = try? NSPredicate(validatingFormat: format, argumentArray: nil) else {
                    throw KeyedArchiveError(description: "the fetch request predicate '\(format)' does not parse")
                }
                predicate = try PredicateArchiving.encode(parsed, into: &writer)
            }
            var flags = FetchRequestFlags.defaultValue
            for (bit, key) in FetchRequestFlags.settings where template.settings[key] == "NO" { flags &= ~bit }
            guard let entity = model?.entitiesByName[template.entityName].flatMap({ writer.existingReference(for: $0) }) else {
                throw KeyedArchiveError(description: "a fetch request names the unknown entity '\(template.entityName)'")
            }
            return writer.object(className: "NSFetchRequest", classes: ["NSFetchRequest", "NSPersistentStoreRequest", "NSObject"], fields: [
                "NSEntity": entity,
                "NSPredicate": predicate,
                "NSSortDescriptors": KeyedArchiveWriter.null,
                "NSValuesToFetch": KeyedArchiveWriter.null,
                "NSValuesToGroupBy": KeyedArchiveWriter.null,
                "NSHavingPredicate": KeyedArchiveWriter.null,
                "NSRelationshipKeyPathsForPrefetching": KeyedArchiveWriter.null,
                "NSHasFetchRequestFlags": .boolean(true),
                "NSFetchRequestFlags": .integer(Int64(flags)),
                "NSResultType": .integer(0),
                "NSFetchOffset": .integer(0),
                "NSFetchLimit": .integer(Int64(template.settings["fetchLimit"].flatMap(Int.init) ?? 0)),
                "NSBatchSize": .integer(Int64(template.settings["fetchBatchSize"].flatMap(Int.init) ?? 0)),
                "NSAllocationType": .integer(0),
            ])
        }
    }
}
