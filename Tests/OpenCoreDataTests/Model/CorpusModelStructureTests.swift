import Foundation
import FoundationXML
import Testing

@testable import OpenCoreData

/// Every XML model of the corpus loads, and what it loads agrees with the XML read independently (Foundation's
/// libxml2-based XMLDocument, not the library's own reader).
@Suite("Corpus: every XML model loads and matches its XML", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct CorpusModelStructureTests {
    static func modelFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Corpus.models.path)
            .filter { $0.hasSuffix(".xml") && !$0.contains(".xcmapping.") }
            .sorted()
    }

    /// The XML spelling → Apple's attribute type, written out here independently of the library's table.
    static let types: [String: NSAttributeType] = [
        "Integer 16": .integer16AttributeType, "Integer 32": .integer32AttributeType, "Integer 64": .integer64AttributeType,
        "Decimal": .decimalAttributeType, "Double": .doubleAttributeType, "Float": .floatAttributeType,
        "String": .stringAttributeType, "Boolean": .booleanAttributeType, "Date": .dateAttributeType,
        "Binary": .binaryDataAttributeType, "UUID": .UUIDAttributeType, "URI": .URIAttributeType,
        "Transformable": .transformableAttributeType, "Composite": .compositeAttributeType,
    ]
    static let rules: [String: NSDeleteRule] = [
        "Nullify": .nullifyDeleteRule, "Cascade": .cascadeDeleteRule, "Deny": .denyDeleteRule, "No Action": .noActionDeleteRule,
    ]

    @Test func everyXMLModelLoadsAndMatchesItsXML() throws {
        let files = try Self.modelFiles()
        var counts = (models: 0, entities: 0, attributes: 0, relationships: 0)
        for file in files {
            let model = try Corpus.model(file)
            let document = try XMLDocument(contentsOf: Corpus.models.appendingPathComponent(file), options: [])
            let entityElements = try document.nodes(forXPath: "/model/entity").compactMap { $0 as? XMLElement }
            #expect(model.entities.count == entityElements.count, "\(file)")
            for element in entityElements {
                func attribute(_ node: XMLElement, _ name: String) -> String? { node.attribute(forName: name)?.stringValue }
                func flag(_ node: XMLElement, _ name: String) -> Bool { attribute(node, name) == "YES" }
                let name = try #require(attribute(element, "name"))
                let entity = try #require(model.entitiesByName[name], "\(file): entity \(name)")
                counts.entities += 1
                #expect(entity.isAbstract == flag(element, "isAbstract"), "\(file): \(name) abstract")
                #expect(entity.superentity?.name == attribute(element, "parentEntity"), "\(file): \(name) parent")
                #expect(entity.managedObjectClassName == (attribute(element, "representedClassName") ?? "NSManagedObject"), "\(file): \(name) class")
                for child in element.elements(forName: "attribute") {
                    let attributeName = try #require(attribute(child, "name"))
                    let loaded = try #require(entity.attributesByName[attributeName], "\(file): \(name).\(attributeName)")
                    #expect(loaded.entity === entity, "\(file): \(name).\(attributeName) owner")
                    let expectedType = attribute(child, "attributeType").map { Self.types[$0] } ?? .undefinedAttributeType
                    #expect(loaded.attributeType == expectedType, "\(file): \(name).\(attributeName) type")
                    #expect(loaded.isOptional == flag(child, "optional"), "\(file): \(name).\(attributeName) optional")
                    #expect(loaded.isTransient == flag(child, "transient"), "\(file): \(name).\(attributeName) transient")
                    #expect(loaded.allowsExternalBinaryDataStorage == flag(child, "allowsExternalBinaryDataStorage"), "\(file): \(name).\(attributeName) external")
                    #expect((loaded is NSDerivedAttributeDescription) == flag(child, "derived"), "\(file): \(name).\(attributeName) derived")
                    counts.attributes += 1
                }
                for child in element.elements(forName: "relationship") {
                    let relationshipName = try #require(attribute(child, "name"))
                    let loaded = try #require(entity.relationshipsByName[relationshipName], "\(file): \(name).\(relationshipName)")
                    let what = "\(file): \(name).\(relationshipName)"
                    #expect(loaded.destinationEntity?.name == attribute(child, "destinationEntity"), "\(what) destination")
                    #expect(loaded.inverseRelationship?.name == attribute(child, "inverseName"), "\(what) inverse")
                    if let inverse = loaded.inverseRelationship {
                        #expect(inverse.entity.isKindOf(entity: try #require(loaded.destinationEntity)), "\(what) inverse owner")
                    }
                    #expect(loaded.isToMany == flag(child, "toMany"), "\(what) to-many")
                    #expect(loaded.isOrdered == flag(child, "ordered"), "\(what) ordered")
                    #expect(loaded.isOptional == flag(child, "optional"), "\(what) optional")
                    #expect(loaded.deleteRule == Self.rules[attribute(child, "deletionRule") ?? "Nullify"], "\(what) delete rule")
                    #expect(loaded.minCount == Int(attribute(child, "minCount") ?? "0"), "\(what) minCount")
                    let expectedMax = Int(attribute(child, "maxCount") ?? "") ?? (flag(child, "toMany") ? 0 : 1)
                    #expect(loaded.maxCount == expectedMax, "\(what) maxCount")
                    counts.relationships += 1
                }
            }
            counts.models += 1
        }
        print("Corpus models: \(counts.models) XML models loaded and compared: \(counts.entities) entities, \(counts.attributes) attributes, \(counts.relationships) relationships")
        #expect(counts.models == files.count && counts.models >= 60)
    }

    /// The corpus's Xcode 3 binary models are refused with a clear error, not a crash.
    @Test func xcode3BinaryModelsAreRefusedClearly() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Corpus.models.path).filter { $0.hasSuffix(".elements.bplist") }
        #expect(files.count >= 5)
        for file in files {
            let directory = try TemporaryDirectory.make()
            let package = directory.appendingPathComponent("Old.xcdatamodel")
            try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Corpus.models.appendingPathComponent(file), to: package.appendingPathComponent("elements"))
            let error = try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: package) }
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSCoreDataError)
            #expect(error.localizedDescription.contains("Xcode 3"))
        }
    }
}
