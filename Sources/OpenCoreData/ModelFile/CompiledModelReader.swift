// Reads Apple's compiled model format: the NSKeyedArchiver archive of an NSManagedObjectModel that a `.mom`
// file holds and that a store's `Z_MODELCACHE` row holds (raw-DEFLATE compressed). The classes and keys are
// those of research/store-format.md §2.3, as Core Data wrote them in the corpus stores:
//
// - NSManagedObjectModel: NSEntities (an NSKnownKeysDictionary1 — `searchMapping.keys` and `values` — or a
//   plain dictionary), NSFetchRequestTemplates, NSVersionIdentifiers, NSConfigurations (name → set of entities).
// - NSEntityDescription: NSEntityName, NSClassNameForEntity, NSIsAbstract, NSSuperentity, NSSubentities,
//   NSProperties (every property by name, inherited ones included — as copies or _NSPropertyDescriptionProxy),
//   NSUserInfo, NSVersionHashModifier, NSRenamingIdentifier, NSUniqueTuples, NSCompoundIndexes,
//   NSFetchIndexDescriptions.
// - Properties: NSPropertyName, NSIsOptional, NSIsTransient, NSIsIndexed, NSUserInfo, NSVersionHashModifier,
//   NSRenamingIdentifier, NSValidationPredicates / NSValidationWarnings; attributes add NSAttributeType,
//   NSAttributeValueClassName, NSDefaultValue, NSValueTransformerName, NSFlagsKey (4: external binary storage,
//   16: preserve value in history on deletion), NSAllowsCloudEncryption; derived attributes NSDerivationExpression;
//   relationships _NSDestinationEntityName, _NSInverseRelationshipName, NSMinCount, NSMaxCount, NSDeleteRule,
//   NSIsOrdered; fetched properties NSFetchRequest.

import Foundation

/// Decodes a compiled model archive into an `NSManagedObjectModel`.
///
/// ```swift
/// let model = try CompiledModelReader.model(fromArchive: Data(contentsOf: momURL))
/// model.entityVersionHashesByName["Mood"]
/// ```
enum CompiledModelReader {
    /// Decodes an uncompressed compiled-model archive. Throws an `NSError` in NSCocoaErrorDomain with code
    /// `NSCoderReadCorruptError` (4864) — the code Apple's unarchiver reports for data it cannot decode — whose
    /// message names the object and key at fault.
    static func model(fromArchive data: Data) throws -> NSManagedObjectModel {
        do {
            let reader = try KeyedArchiveReader(data: data)
            var decoder = Decoder(reader: reader)
            return try decoder.decodeModel()
        } catch {
            throw CoreDataError.make(CocoaError.coderReadCorrupt.rawValue, "The data is not a valid compiled model archive: \(error.description)")
        }
    }

    /// Decodes a model cache blob (`Z_MODELCACHE.Z_CONTENT`): raw DEFLATE of a compiled-model archive.
    static func model(fromModelCache blob: Data) throws -> NSManagedObjectModel {
        let archive: Data
        do {
            archive = try Deflate.inflate(blob)
        } catch {
            throw CoreDataError.make(CocoaError.coderReadCorrupt.rawValue, "The model cache is not valid DEFLATE data: \(error)")
        }
        return try model(fromArchive: archive)
    }

    private struct Decoder {
        let reader: KeyedArchiveReader
        var entities: [Int: NSEntityDescription] = [:]

        init(reader: KeyedArchiveReader) {
            self.reader = reader
        }

        func fail(_ index: Int, _ problem: String) -> KeyedArchiveError {
            KeyedArchiveError(description: "\(reader.describe(index)): \(problem)")
        }

        func expectClass(_ index: Int, _ names: Set<String>) throws(KeyedArchiveError) -> String {
            guard let name = reader.className(index), names.contains(name) else {
                throw fail(index, "expected \(names.sorted().joined(separator: " or "))")
            }
            return name
        }

        /// The values of a dictionary-like object: NSDictionary, NSMutableDictionary or NSKnownKeysDictionary1,
        /// as (key, value) pairs.
        func dictionaryEntries(_ index: Int) throws(KeyedArchiveError) -> [(key: String, value: Int)] {
            if reader.className(index) == "NSKnownKeysDictionary1" {
                let values = try reader.elements("values", of: index)
                let mapping = try reader.requiredReference("searchMapping", of: index)
                let keyIndexes = try reader.elements("keys", of: mapping)
                guard keyIndexes.count >= values.count else { throw fail(index, "fewer keys than values") }
                var result: [(key: String, value: Int)] = []
                for (keyIndex, value) in zip(keyIndexes, values) { result.append((try reader.string(at: keyIndex), value)) }
                return result
            }
            var result: [(key: String, value: Int)] = []
            for entry in try reader.entries(of: index) { result.append((try reader.string(at: entry.key), entry.value)) }
            return result
        }

        func dictionaryEntries(_ key: String, of index: Int) throws(KeyedArchiveError) -> [(key: String, value: Int)] {
            guard let reference = try reader.reference(key, of: index) else { return [] }
            return try dictionaryEntries(reference)
        }

        func userInfo(of index: Int) throws(KeyedArchiveError) -> [AnyHashable: Any]? {
            guard let reference = try reader.reference("NSUserInfo", of: index) else { return nil }
            let value = try reader.foundationValue(at: reference)
            guard let dictionary = value as? [AnyHashable: Any] else { throw fail(index, "NSUserInfo is not a dictionary") }
            // Archived numbers are NSNumbers, as Apple's unarchiver hands them out.
            return dictionary.isEmpty ? nil : dictionary.mapValues { FoundationBridging.object($0) }
        }

        /// Arrays of property names (NSUniqueTuples, NSCompoundIndexes).
        func nameLists(_ key: String, of index: Int) throws(KeyedArchiveError) -> [[Any]] {
            var result: [[Any]] = []
            for list in try reader.elements(key, of: index) {
                var names: [Any] = []
                for element in try reader.elements(of: list) {
                    if reader.className(element) == "NSString" || reader.className(element) == "NSMutableString" {
                        names.append(try reader.string(at: element))
                    } else {
                        // A property description standing for its name.
                        guard let name = try reader.string("NSPropertyName", of: element) else { throw fail(element, "not a property name") }
                        names.append(name)
                    }
                }
                result.append(names)
            }
            return result
        }

        // MARK: Model

        mutating func decodeModel() throws(KeyedArchiveError) -> NSManagedObjectModel {
            let root = try reader.root()
            _ = try expectClass(root, ["NSManagedObjectModel"])
            let entityEntries = try dictionaryEntries("NSEntities", of: root)
            var ordered: [NSEntityDescription] = []
            var names: Set<String> = []
            for entry in entityEntries {
                let entity = try decodeEntity(entry.value)
                guard entity._name == entry.key else { throw fail(entry.value, "listed as '\(entry.key)' but named '\(entity._name ?? "")'") }
                guard names.insert(entry.key).inserted else { throw fail(root, "two entities are named '\(entry.key)'") }
                ordered.append(entity)
            }
            // Inheritance: each entity's subentities in its NSSubentities order.
            for entry in entityEntries {
                let entity = entities[entry.value]!
                var subentities: [NSEntityDescription] = []
                for sub in try dictionaryEntries("NSSubentities", of: entry.value) {
                    guard let subentity = entities[sub.value] else { throw fail(sub.value, "subentity '\(sub.key)' is not among the model's entities") }
                    guard try reader.reference("NSSuperentity", of: sub.value) == entry.value, !subentities.contains(where: { $0 === subentity }) else {
                        throw fail(sub.value, "listed as a subentity of '\(entry.key)', which is not its superentity")
                    }
                    subentities.append(subentity)
                }
                if let superIndex = try reader.reference("NSSuperentity", of: entry.value) {
                    guard let parent = entities[superIndex] else { throw fail(entry.value, "its superentity is not among the model's entities") }
                    guard try dictionaryEntries("NSSubentities", of: superIndex).contains(where: { $0.value == entry.value }) else {
                        throw fail(entry.value, "its superentity '\(parent._name ?? "")' does not list it as a subentity")
                    }
                }
                entity.subentities = subentities
            }
            try checkAcyclicInheritance(ordered)
            for (entry, entity) in zip(entityEntries, ordered) {
                entity.properties = try decodeOwnProperties(of: entry.value, entity: entity)
            }
            let model = NSManagedObjectModel()
            model.entities = ordered
            model.linkRelationships()
            for entity in ordered {
                for case let relationship as NSRelationshipDescription in entity._ownProperties where relationship._destinationEntity == nil {
                    throw KeyedArchiveError(description: "relationship '\(relationship._name)' of entity '\(entity._name ?? "")' has the unknown destination '\(relationship._destinationEntityName ?? "")'")
                }
            }
            if let identifiers = try reader.reference("NSVersionIdentifiers", of: root) {
                guard let set = try reader.foundationValue(at: identifiers) as? Set<AnyHashable> else { throw fail(root, "NSVersionIdentifiers is not a set") }
                model._versionIdentifiers = set
            }
            for configuration in try dictionaryEntries("NSConfigurations", of: root).sorted(by: { $0.key < $1.key }) {
                var names: [String] = []
                for member in try reader.elements(of: configuration.value) {
                    guard let entity = entities[member], let name = entity._name else { throw fail(member, "configuration member is not a model entity") }
                    names.append(name)
                }
                model._configurations.append((configuration.key, names.sorted()))
            }
            for template in try dictionaryEntries("NSFetchRequestTemplates", of: root).sorted(by: { $0.key < $1.key }) {
                model._fetchRequestTemplates.append((template.key, try decodeFetchRequestTemplate(template.value)))
            }
            return model
        }

        func checkAcyclicInheritance(_ entities: [NSEntityDescription]) throws(KeyedArchiveError) {
            for entity in entities {
                var seen: Set<ObjectIdentifier> = [ObjectIdentifier(entity)]
                var current = entity._superentity
                while let parent = current {
                    guard seen.insert(ObjectIdentifier(parent)).inserted else {
                        throw KeyedArchiveError(description: "entity '\(entity._name ?? "")' is in an inheritance cycle")
                    }
                    current = parent._superentity
                }
            }
        }

        // MARK: Entities

        mutating func decodeEntity(_ index: Int) throws(KeyedArchiveError) -> NSEntityDescription {
            if let existing = entities[index] { return existing }
            _ = try expectClass(index, ["NSEntityDescription"])
            guard let name = try reader.string("NSEntityName", of: index), !name.isEmpty else { throw fail(index, "NSEntityName is missing") }
            let entity = NSEntityDescription()
            entity._name = name
            entity._managedObjectClassName = try reader.string("NSClassNameForEntity", of: index) ?? "NSManagedObject"
            entity._isAbstract = try reader.bool("NSIsAbstract", of: index)
            entity._userInfo = try userInfo(of: index)
            entity._versionHashModifier = try reader.string("NSVersionHashModifier", of: index)
            // Core Data writes the name when no renaming identifier is set.
            entity._renamingIdentifier = try reader.string("NSRenamingIdentifier", of: index).flatMap { $0 == name ? nil : $0 }
            entity._uniquenessConstraints = try nameLists("NSUniqueTuples", of: index)
            entity._compoundIndexes = try nameLists("NSCompoundIndexes", of: index)
            var indexes: [NSFetchIndexDescription] = []
            for indexObject in try reader.elements("NSFetchIndexDescriptions", of: index) {
                indexes.append(try decodeFetchIndex(indexObject))
            }
            entity.indexes = indexes
            entities[index] = entity
            return entity
        }

        func decodeFetchIndex(_ index: Int) throws(KeyedArchiveError) -> NSFetchIndexDescription {
            _ = try expectClass(index, ["NSFetchIndexDescription"])
            guard let name = try reader.string("NSIndexName", of: index) else { throw fail(index, "NSIndexName is missing") }
            var elements: [NSFetchIndexElementDescription] = []
            for elementIndex in try reader.elements("NSIndexElements", of: index) {
                _ = try expectClass(elementIndex, ["NSFetchIndexElementDescription"])
                guard let propertyName = try reader.string("NSPropertyName", of: elementIndex) else {
                    throw fail(elementIndex, "expression index elements are not supported; NSPropertyName is missing")
                }
                let rawType = try reader.integer("NSFetchIndexElementType", of: elementIndex) ?? 0
                guard let type = NSFetchIndexElementType(rawValue: UInt(clamping: rawType)) else { throw fail(elementIndex, "bad NSFetchIndexElementType") }
                let element = NSFetchIndexElementDescription(propertyName: propertyName, collationType: type)
                element._isAscending = try reader.bool("NSAscending", of: elementIndex, default: true)
                elements.append(element)
            }
            let description = NSFetchIndexDescription(name: name, elements: elements)
            if let predicate = try reader.reference("NSPartialIndexPredicate", of: index) {
                description._partialIndexPredicateFormat = try PredicateArchiving.decodePredicate(predicate, in: reader).predicateFormat
            }
            return description
        }

        /// The entity's own properties: those of its NSProperties that its superentity's NSProperties do not list.
        func decodeOwnProperties(of index: Int, entity: NSEntityDescription) throws(KeyedArchiveError) -> [NSPropertyDescription] {
            var inherited: Set<String> = []
            if let parent = try reader.reference("NSSuperentity", of: index) {
                inherited = Set(try dictionaryEntries("NSProperties", of: parent).map(\.key))
            }
            var result: [NSPropertyDescription] = []
            var names: Set<String> = []
            for entry in try dictionaryEntries("NSProperties", of: index) where !inherited.contains(entry.key) {
                guard reader.className(entry.value) != "_NSPropertyDescriptionProxy" else {
                    throw fail(entry.value, "a proxy for '\(entry.key)', which the superentity does not have")
                }
                let property = try decodeProperty(entry.value)
                guard property._name == entry.key, names.insert(entry.key).inserted else {
                    throw fail(entry.value, "listed as '\(entry.key)' but named '\(property._name)'")
                }
                result.append(property)
            }
            return result
        }

        // MARK: Properties

        func decodeProperty(_ index: Int, inComposite: Bool = false) throws(KeyedArchiveError) -> NSPropertyDescription {
            let className = try expectClass(index, ["NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription",
                                                     "NSRelationshipDescription", "NSFetchedPropertyDescription"])
            let property: NSPropertyDescription
            switch className {
            case "NSRelationshipDescription": property = try decodeRelationship(index)
            case "NSFetchedPropertyDescription": property = try decodeFetchedProperty(index)
            default:
                // Composite attributes hold plain attributes only (a composite inside one would let an archive recurse).
                guard !inComposite || className == "NSAttributeDescription" else { throw fail(index, "a composite element must be a plain attribute") }
                property = try decodeAttribute(index, className: className)
            }
            guard let name = try reader.string("NSPropertyName", of: index), !name.isEmpty else { throw fail(index, "NSPropertyName is missing") }
            property._name = name
            property._isOptional = try reader.bool("NSIsOptional", of: index)
            property._isTransient = try reader.bool("NSIsTransient", of: index)
            property._isIndexed = try reader.bool("NSIsIndexed", of: index)
            property._isIndexedBySpotlight = try reader.bool("NSIsIndexedBySpotlight", of: index)
            property._isStoredInExternalRecord = try reader.bool("NSIsStoredInExternalRecord", of: index)
            property._userInfo = try userInfo(of: index)
            property._versionHashModifier = try reader.string("NSVersionHashModifier", of: index)
            property._renamingIdentifier = try reader.string("NSRenamingIdentifier", of: index).flatMap { $0 == name ? nil : $0 }
            let predicates = try reader.elements("NSValidationPredicates", of: index)
            let warnings = try reader.elements("NSValidationWarnings", of: index)
            guard predicates.count == warnings.count else { throw fail(index, "NSValidationPredicates and NSValidationWarnings differ in length") }
            var rules: [ValidationRule] = []
            for (predicate, warning) in zip(predicates, warnings) {
                let decoded = try PredicateArchiving.decodePredicate(predicate, in: reader)
                let value = try reader.foundationValue(at: warning)
                guard value is String || value is NSNumber || value is Int else { throw fail(warning, "a validation warning is neither a message nor a code") }
                rules.append(ValidationRule(predicate: decoded, warning: (value as? Int).map { NSNumber(value: $0) } ?? value))
            }
            property._validationRules = rules
            return property
        }

        func decodeAttribute(_ index: Int, className: String) throws(KeyedArchiveError) -> NSAttributeDescription {
            let attribute: NSAttributeDescription
            switch className {
            case "NSDerivedAttributeDescription":
                let derived = NSDerivedAttributeDescription()
                let expression = try PredicateArchiving.decodeExpression(try reader.requiredReference("NSDerivationExpression", of: index), in: reader)
                derived._derivationExpressionFormat = expression.description
                attribute = derived
            case "NSCompositeAttributeDescription":
                let composite = NSCompositeAttributeDescription()
                var elements: [NSAttributeDescription] = []
                for element in try reader.elements("NSElements", of: index) {
                    guard let attribute = try decodeProperty(element, inComposite: true) as? NSAttributeDescription else { throw fail(element, "a composite element is not an attribute") }
                    elements.append(attribute)
                }
                composite._elements = elements
                attribute = composite
            default:
                attribute = NSAttributeDescription()
            }
            let rawType = try reader.integer("NSAttributeType", of: index) ?? 0
            guard let type = NSAttributeType(rawValue: UInt(clamping: rawType)) else { throw fail(index, "unknown NSAttributeType \(rawType)") }
            attribute._attributeType = type
            attribute._attributeValueClassName = try reader.string("NSAttributeValueClassName", of: index)
            attribute._valueTransformerName = try reader.string("NSValueTransformerName", of: index)
            let flags = try reader.integer("NSFlagsKey", of: index) ?? 0
            attribute._allowsExternalBinaryDataStorage = flags & 4 != 0
            attribute._preservesValueInHistoryOnDeletion = flags & 16 != 0
            attribute._allowsCloudEncryption = try reader.bool("NSAllowsCloudEncryption", of: index)
            if let value = try reader.reference("NSDefaultValue", of: index) {
                attribute._defaultValue = try defaultValue(value, type: type)
            }
            return attribute
        }

        /// A default value as the XML reader makes it (NSNumber for numbers and booleans); nil for values of an
        /// app's own classes (a transformable attribute's default), which have no Linux counterpart.
        func defaultValue(_ index: Int, type: NSAttributeType) throws(KeyedArchiveError) -> Any? {
            guard let name = reader.className(index), Self.valueClassNames.contains(name) else { return nil }
            let value = try reader.foundationValue(at: index)
            switch value {
            case let flag as Bool: return NSNumber(value: flag)
            case let integer as Int: return type == .decimalAttributeType ? NSDecimalNumber(value: integer) : NSNumber(value: integer)
            case let double as Double:
                if type == .floatAttributeType { return NSNumber(value: Float(double)) }
                return type == .decimalAttributeType ? NSDecimalNumber(value: double) : NSNumber(value: double)
            default: return value
            }
        }

        static let valueClassNames: Set<String> = ["NSString", "NSMutableString", "NSNumber", "NSData", "NSMutableData", "NSDate",
                                                   "NSUUID", "NSURL", "NSArray", "NSMutableArray", "NSDictionary", "NSMutableDictionary",
                                                   "NSSet", "NSMutableSet", "NSNull"]

        func decodeRelationship(_ index: Int) throws(KeyedArchiveError) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            var destination = try reader.string("_NSDestinationEntityName", of: index)
            if destination == nil, let entity = try reader.reference("NSDestinationEntity", of: index) {
                destination = try reader.string("NSEntityName", of: entity)
            }
            guard let destination else { throw fail(index, "the relationship has no destination entity") }
            relationship._destinationEntityName = destination
            var inverse = try reader.string("_NSInverseRelationshipName", of: index)
            if inverse == nil, let inverseIndex = try reader.reference("NSInverseRelationship", of: index) {
                inverse = try reader.string("NSPropertyName", of: inverseIndex)
            }
            relationship._inverseRelationshipName = inverse
            relationship._minCount = try reader.integer("NSMinCount", of: index) ?? 0
            relationship._maxCount = try reader.integer("NSMaxCount", of: index) ?? 1
            guard let rule = NSDeleteRule(rawValue: UInt(clamping: try reader.integer("NSDeleteRule", of: index) ?? 1)) else {
                throw fail(index, "bad NSDeleteRule")
            }
            relationship._deleteRule = rule
            relationship._isOrdered = try reader.bool("NSIsOrdered", of: index)
            return relationship
        }

        func decodeFetchedProperty(_ index: Int) throws(KeyedArchiveError) -> NSFetchedPropertyDescription {
            let property = NSFetchedPropertyDescription()
            property._fetchRequestEntityName = try reader.string("_NSFetchRequestEntityName", of: index)
            if let request = try reader.reference("NSFetchRequest", of: index) {
                let template = try decodeFetchRequestTemplate(request)
                if property._fetchRequestEntityName == nil { property._fetchRequestEntityName = template.entityName }
                property._fetchRequestPredicateFormat = template.predicateFormat
            }
            return property
        }

        /// An NSFetchRequest as a model template: entity, predicate, and the settings the XML format knows.
        func decodeFetchRequestTemplate(_ index: Int) throws(KeyedArchiveError) -> FetchRequestTemplate {
            _ = try expectClass(index, ["NSFetchRequest"])
            var entityName: String?
            if let entity = try reader.reference("NSEntity", of: index) {
                entityName = try reader.string("NSEntityName", of: entity)
            }
            guard let entityName else { throw fail(index, "the fetch request has no entity") }
            var template = FetchRequestTemplate(entityName: entityName)
            if let predicate = try reader.reference("NSPredicate", of: index) {
                template.predicateFormat = try PredicateArchiving.decodePredicate(predicate, in: reader).predicateFormat
            }
            if let limit = try reader.integer("NSFetchLimit", of: index), limit > 0 { template.settings["fetchLimit"] = "\(limit)" }
            if let size = try reader.integer("NSBatchSize", of: index), size > 0 { template.settings["fetchBatchSize"] = "\(size)" }
            if let flags = try reader.integer("NSFetchRequestFlags", of: index), try reader.bool("NSHasFetchRequestFlags", of: index, default: true) {
                for (bit, key) in FetchRequestFlags.settings where flags & bit == 0 { template.settings[key] = "NO" }
            }
            return template
        }
    }
}

/// The bits of NSFetchRequest's `NSFetchRequestFlags` that the model's template settings carry. Apple's default
/// flags are 30 (`0b11110`) in every corpus fetched property; which bit is which is inferred from Core Data's
/// defaults (the four settings that default to YES), not verified against Apple (DEVIATIONS.md).
enum FetchRequestFlags {
    static let settings: [(bit: Int, key: String)] = [
        (2, "includeSubentities"), (4, "includesPendingChanges"), (8, "returnObjectsAsFaults"), (16, "includesPropertyValues"),
    ]
    static let defaultValue = 30
}
