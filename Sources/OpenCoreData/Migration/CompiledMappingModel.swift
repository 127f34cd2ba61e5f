// Compiled mapping models (`.cdm`): the keyed archive Xcode's mapping compiler makes of an `.xcmappingmodel`, which
// apps ship and `NSMappingModel(contentsOf:)` / `NSMappingModel(from:forSourceModel:destinationModel:)` load.
//
// The classes and keys are those of Apple's `encodeWithCoder:`/`initWithCoder:` (verified against a public
// decompilation of Apple's Core Data; DEVIATIONS.md M11):
// - `NSMappingModel`: `NSEntityMappings` (array), `NSEntityMappingsByName` (dictionary, derived);
// - `NSEntityMapping`: `NSMappingName`, `NSMappingType` (int), `NSSourceEntityName`, `NSSourceEntityVersionHash`,
//   `NSDestinationEntityName`, `NSDestinationEntityVersionHash`, `NSSourceExpression`, `NSUserInfo`,
//   `NSEntityMigrationPolicyClassName`, `NSAttributeMappings`, `NSRelationshipMappings`;
// - `NSPropertyMapping`: `NSDestinationPropertyName`, `NSValueExpression`, `NSUserInfo`, `NSPropertyTransforms`;
// - `NSFetchRequestExpression` (a source expression's `FETCH(…)`): the expression keys with `NSExpressionType` 50,
//   `NSFRExpression`, `NSMOCExpression`, `NSCountOnlyFlag`.
// Other expressions use the predicate archiving of the model files (PredicateArchiving.swift).

import Foundation

/// Reads and writes compiled mapping models.
///
/// ```swift
/// let mapping = try CompiledMappingModel.mappingModel(fromArchive: Data(contentsOf: cdmURL))
/// let data = try CompiledMappingModel.archive(mapping)
/// ```
enum CompiledMappingModel {
    /// Whether `data` looks like a compiled mapping model (a binary property list) rather than an Xcode one.
    static func isArchive(_ data: Data) -> Bool {
        data.starts(with: Array("bplist00".utf8))
    }

    // MARK: Reading

    /// The mapping model in a `.cdm` archive. Throws `NSCoderReadCorruptError` (4864) naming the problem for anything
    /// else.
    static func mappingModel(fromArchive data: Data) throws -> NSMappingModel {
        do {
            let reader = try KeyedArchiveReader(data: data)
            let root = try reader.root()
            guard reader.className(root) == "NSMappingModel" else {
                throw KeyedArchiveError(description: "the root object is \(reader.className(root) ?? "?"), not an NSMappingModel")
            }
            let mapping = NSMappingModel()
            var entityMappings: [NSEntityMapping] = []
            for index in try reader.elements("NSEntityMappings", of: root) { entityMappings.append(try entityMapping(index, reader)) }
            mapping.entityMappings = entityMappings
            return mapping
        } catch {
            throw PredicateArchiving.corruptArchiveError("NSMappingModel", error)
        }
    }

    private static func entityMapping(_ index: Int, _ reader: KeyedArchiveReader) throws(KeyedArchiveError) -> NSEntityMapping {
        guard reader.className(index) == "NSEntityMapping" else { throw KeyedArchiveError(description: "\(reader.describe(index)) is not an NSEntityMapping") }
        let mapping = NSEntityMapping()
        mapping.name = try reader.string("NSMappingName", of: index)
        let type = try reader.integer("NSMappingType", of: index) ?? 0
        guard let mappingType = NSEntityMappingType(rawValue: UInt(clamping: type)) else {
            throw KeyedArchiveError(description: "\(reader.describe(index)): unknown NSMappingType \(type)")
        }
        mapping.mappingType = mappingType
        mapping.sourceEntityName = try reader.string("NSSourceEntityName", of: index)
        mapping.destinationEntityName = try reader.string("NSDestinationEntityName", of: index)
        mapping.sourceEntityVersionHash = try data("NSSourceEntityVersionHash", of: index, reader)
        mapping.destinationEntityVersionHash = try data("NSDestinationEntityVersionHash", of: index, reader)
        if let expression = try reader.reference("NSSourceExpression", of: index) { mapping.sourceExpression = try decodeExpression(expression, reader) }
        mapping.userInfo = try userInfo("NSUserInfo", of: index, reader)
        mapping.entityMigrationPolicyClassName = try reader.string("NSEntityMigrationPolicyClassName", of: index)
        mapping.attributeMappings = try propertyMappings("NSAttributeMappings", of: index, reader)
        mapping.relationshipMappings = try propertyMappings("NSRelationshipMappings", of: index, reader)
        if mapping.name == nil, mapping.sourceEntityName != nil || mapping.destinationEntityName != nil {
            mapping.name = [mapping.sourceEntityName, mapping.destinationEntityName].compactMap { $0 }.joined(separator: "To")
        }
        return mapping
    }

    private static func propertyMappings(_ key: String, of index: Int, _ reader: KeyedArchiveReader) throws(KeyedArchiveError) -> [NSPropertyMapping]? {
        guard try reader.reference(key, of: index) != nil else { return nil }
        var result: [NSPropertyMapping] = []
        for element in try reader.elements(key, of: index) {
            guard reader.className(element) == "NSPropertyMapping" else { throw KeyedArchiveError(description: "\(reader.describe(element)) is not an NSPropertyMapping") }
            let mapping = NSPropertyMapping()
            mapping.name = try reader.string("NSDestinationPropertyName", of: element)
            if let expression = try reader.reference("NSValueExpression", of: element) { mapping.valueExpression = try decodeExpression(expression, reader) }
            mapping.userInfo = try userInfo("NSUserInfo", of: element, reader)
            result.append(mapping)
        }
        return result
    }

    private static func data(_ key: String, of index: Int, _ reader: KeyedArchiveReader) throws(KeyedArchiveError) -> Data? {
        guard let reference = try reader.reference(key, of: index) else { return nil }
        guard let data = try reader.foundationValue(at: reference) as? Data else { throw KeyedArchiveError(description: "\(reader.describe(index)): \(key) is not data") }
        return data
    }

    private static func userInfo(_ key: String, of index: Int, _ reader: KeyedArchiveReader) throws(KeyedArchiveError) -> [AnyHashable: Any]? {
        guard let reference = try reader.reference(key, of: index) else { return nil }
        guard let dictionary = try reader.foundationValue(at: reference) as? [AnyHashable: Any] else {
            throw KeyedArchiveError(description: "\(reader.describe(index)): \(key) is not a dictionary")
        }
        return dictionary
    }

    /// An expression, `FETCH(…)` included.
    private static func decodeExpression(_ index: Int, _ reader: KeyedArchiveReader) throws(KeyedArchiveError) -> NSExpression {
        guard reader.className(index) == "NSFetchRequestExpression" else { return try PredicateArchiving.decodeExpression(index, in: reader) }
        let request = try PredicateArchiving.decodeExpression(try reader.requiredReference("NSFRExpression", of: index), in: reader)
        let context = try PredicateArchiving.decodeExpression(try reader.requiredReference("NSMOCExpression", of: index), in: reader)
        return NSFetchRequestExpression.expression(forFetch: request, context: context, countOnly: try reader.bool("NSCountOnlyFlag", of: index))
    }

    // MARK: Writing

    /// The `.cdm` archive of `mapping`. Throws `NSCoderInvalidValueError` (4866) for expressions or user info that
    /// cannot be archived.
    static func archive(_ mapping: NSMappingModel) throws -> Data {
        var writer = KeyedArchiveWriter()
        do {
            let root = writer.reserve(mapping)
            var references: [(name: String?, reference: PropertyListObject)] = []
            for entityMapping in mapping.entityMappings ?? [] { references.append((entityMapping.name, try encode(entityMapping, into: &writer))) }
            let array = writer.array(references.map(\.reference), className: "NSMutableArray")
            var byName: [(key: PropertyListObject, value: PropertyListObject)] = []
            for (name, reference) in references {
                guard let name else { continue }
                byName.append((writer.string(name), reference))
            }
            let dictionary = writer.dictionary(byName, className: "NSMutableDictionary")
            writer.fill(root, className: "NSMappingModel", classes: ["NSMappingModel", "NSObject"], fields: ["NSEntityMappings": array, "NSEntityMappingsByName": dictionary])
            return writer.archive(root: .uid(UInt64(root)))
        } catch {
            throw CoreDataError.make(CocoaError.coderInvalidValue.rawValue, "Cannot archive the mapping model: \(error)")
        }
    }

    private static func encode(_ mapping: NSEntityMapping, into writer: inout KeyedArchiveWriter) throws(KeyedArchiveError) -> PropertyListObject {
        var fields: [String: PropertyListObject] = [
            "NSMappingType": .integer(Int64(mapping.mappingType.rawValue)),
            "NSSourceEntityName": writer.optionalString(mapping.sourceEntityName),
            "NSDestinationEntityName": writer.optionalString(mapping.destinationEntityName),
            "NSSourceEntityVersionHash": mapping.sourceEntityVersionHash.map { writer.scalarObject(.data([UInt8]($0))) } ?? KeyedArchiveWriter.null,
            "NSDestinationEntityVersionHash": mapping.destinationEntityVersionHash.map { writer.scalarObject(.data([UInt8]($0))) } ?? KeyedArchiveWriter.null,
            "NSEntityMigrationPolicyClassName": writer.optionalString(mapping.entityMigrationPolicyClassName),
        ]
        if let name = mapping.name { fields["NSMappingName"] = writer.string(name) }
        fields["NSSourceExpression"] = try mapping.sourceExpression.map { (expression) throws(KeyedArchiveError) in try encode(expression, into: &writer) } ?? KeyedArchiveWriter.null
        fields["NSUserInfo"] = try userInfo(mapping.userInfo, into: &writer)
        fields["NSAttributeMappings"] = try properties(mapping.attributeMappings, into: &writer)
        fields["NSRelationshipMappings"] = try properties(mapping.relationshipMappings, into: &writer)
        return writer.object(className: "NSEntityMapping", classes: ["NSEntityMapping", "NSObject"], fields: fields)
    }

    private static func properties(_ mappings: [NSPropertyMapping]?, into writer: inout KeyedArchiveWriter) throws(KeyedArchiveError) -> PropertyListObject {
        guard let mappings else { return KeyedArchiveWriter.null }
        var references: [PropertyListObject] = []
        for mapping in mappings {
            let value = try mapping.valueExpression.map { (expression) throws(KeyedArchiveError) in try encode(expression, into: &writer) } ?? KeyedArchiveWriter.null
            references.append(writer.object(className: "NSPropertyMapping", classes: ["NSPropertyMapping", "NSObject"], fields: [
                "NSDestinationPropertyName": writer.optionalString(mapping.name),
                "NSValueExpression": value,
                "NSUserInfo": try userInfo(mapping.userInfo, into: &writer),
                "NSPropertyTransforms": KeyedArchiveWriter.null,
            ]))
        }
        return writer.array(references, className: "NSMutableArray")
    }

    private static func userInfo(_ userInfo: [AnyHashable: Any]?, into writer: inout KeyedArchiveWriter) throws(KeyedArchiveError) -> PropertyListObject {
        guard let userInfo else { return KeyedArchiveWriter.null }
        guard let encoded = writer.foundationValue(userInfo) else { throw KeyedArchiveError(description: "the user info \(userInfo) holds values that are not Foundation values") }
        return encoded
    }

    /// An expression, `FETCH(…)` included.
    private static func encode(_ expression: NSExpression, into writer: inout KeyedArchiveWriter) throws(KeyedArchiveError) -> PropertyListObject {
        guard let fetch = expression as? NSFetchRequestExpression else { return try PredicateArchiving.encode(expression, into: &writer) }
        let request = try PredicateArchiving.encode(fetch.requestExpression, into: &writer)
        let context = try PredicateArchiving.encode(fetch.contextExpression, into: &writer)
        return writer.object(className: "NSFetchRequestExpression", classes: ["NSFetchRequestExpression", "NSExpression", "NSObject"], fields: [
            "NSExpressionType": .integer(50), "NSFRExpression": request, "NSMOCExpression": context, "NSCountOnlyFlag": .boolean(fetch.isCountOnlyRequest),
        ])
    }
}

extension NSMappingModel {
    /// Everything a compiled mapping model holds, as text (to check that an archive reads back equal).
    var archiveSummary: [String] {
        (entityMappings ?? []).map { mapping in
            let properties = ((mapping.attributeMappings ?? []) + (mapping.relationshipMappings ?? [])).map { "\($0.name ?? "-")=\($0.valueExpression?.description ?? "-")" }
            return [mapping.name ?? "-", "\(mapping.mappingType.rawValue)", mapping.sourceEntityName ?? "-", mapping.destinationEntityName ?? "-",
                    mapping.sourceEntityVersionHash?.base64EncodedString() ?? "-", mapping.destinationEntityVersionHash?.base64EncodedString() ?? "-",
                    mapping.sourceExpression?.description ?? "-", mapping.entityMigrationPolicyClassName ?? "-"].joined(separator: " ") + " " + properties.joined(separator: ", ")
        }
    }
}
