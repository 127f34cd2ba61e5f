import Foundation
import Testing

@testable import OpenCoreData

/// The model classes' API: inheritance, merging, copying, compatibility checks, both attribute-type spellings,
/// and immutability once a coordinator uses the model.
@Suite struct ModelAPITests {
    static func libraryModel() throws -> NSManagedObjectModel {
        try NSManagedObjectModel(validatingContentsOf: ModelFileTests.libraryURL)
    }

    @Test func inheritedPropertiesAppearInEveryByNameTable() throws {
        let model = try Self.libraryModel()
        let book = try #require(model.entitiesByName["Book"])
        let ebook = try #require(model.entitiesByName["Ebook"])
        #expect(ebook.superentity === book)
        #expect(book.subentities.map(\.name) == ["Ebook"])
        #expect(book.subentitiesByName["Ebook"] === ebook)
        #expect(ebook.propertiesByName["title"] === book.propertiesByName["title"])
        #expect(ebook.attributesByName["fileSize"] != nil && book.attributesByName["fileSize"] == nil)
        #expect(ebook.relationshipsByName["author"] === book.relationshipsByName["author"])
        #expect(ebook.properties.map(\.name).prefix(book.properties.count) == book.properties.map(\.name)[...])
        #expect(ebook.properties.last?.name == "fileSize")
        #expect(ebook.isKindOf(entity: book) && !book.isKindOf(entity: ebook) && book.isKindOf(entity: book))
        let author = try #require(model.entitiesByName["Author"])
        #expect(author.relationships(forDestination: book).map(\.name) == ["books"])
        #expect(ebook.relationships(forDestination: author).map(\.name) == ["author"])
        // A sub-entity's hash includes its super-entity's: changing the parent changes the child.
        let copy = model.copy() as! NSManagedObjectModel
        copy.entitiesByName["Book"]!.versionHashModifier = "v2"
        #expect(copy.entitiesByName["Ebook"]!.versionHash != ebook.versionHash)
        #expect(copy.entitiesByName["Author"]!.versionHash == author.versionHash)
    }

    @Test func bothAttributeTypeSpellings() {
        let attribute = NSAttributeDescription()
        #expect(attribute.attributeType == .undefinedAttributeType && attribute.type == .undefined)
        attribute.type = .date
        #expect(attribute.attributeType == .dateAttributeType)
        #expect(attribute.attributeValueClassName == "NSDate")
        attribute.attributeType = .integer16AttributeType
        #expect(attribute.type == .integer16)
        #expect(attribute.attributeValueClassName == "NSNumber")
        #expect(NSAttributeDescription.AttributeType(rawValue: .UUIDAttributeType) == .uuid)
        #expect(NSAttributeType(rawValue: 1800) == .transformableAttributeType)
        #expect(NSAttributeType.compositeAttributeType.rawValue == 2100)
        #expect(NSDeleteRule(rawValue: 2) == .cascadeDeleteRule)
    }

    @Test func copiesAreDeepAndHashIdentically() throws {
        let model = try Self.libraryModel()
        let copy = model.copy() as! NSManagedObjectModel
        #expect(copy.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(copy.versionIdentifiers == model.versionIdentifiers)
        #expect(copy.configurations == model.configurations)
        for (name, entity) in copy.entitiesByName {
            #expect(entity !== model.entitiesByName[name])
            #expect(entity.managedObjectModel === copy)
            for case let relationship as NSRelationshipDescription in entity.properties {
                #expect(relationship.destinationEntity?.managedObjectModel === copy)
                #expect(relationship.inverseRelationship?.entity.managedObjectModel === copy)
            }
        }
        #expect(copy.entitiesByName["Ebook"]?.superentity === copy.entitiesByName["Book"])
    }

    @Test func mergingModels() throws {
        let library = try Self.libraryModel()
        let moods = MoodyModelInCode.version6()
        let merged = try #require(NSManagedObjectModel(byMerging: [library, moods]))
        #expect(Set(merged.entitiesByName.keys) == Set(library.entitiesByName.keys).union(moods.entitiesByName.keys))
        #expect(merged.entitiesByName["Mood"]?.versionHash == moods.entitiesByName["Mood"]?.versionHash)
        #expect(merged.versionIdentifiers == ["2", "6"])
        #expect(merged.configurations == ["Catalog", "People"])
        #expect(NSManagedObjectModel(byMerging: [library, library]) == nil)
        #expect(NSManagedObjectModel(byMergingModels: [moods])?.entities.count == 3)
    }

    @Test func compatibilityWithStoreMetadata() throws {
        let model = try Self.libraryModel()
        var metadata: [String: Any] = [NSStoreModelVersionHashesKey: model.entityVersionHashesByName]
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(model.isConfiguration(withName: "People", compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: ["Author": model.entitiesByName["Author"]!.versionHash]]))
        var hashes = model.entityVersionHashesByName
        hashes["Book"] = Data(repeating: 0, count: 32)
        metadata[NSStoreModelVersionHashesKey] = hashes
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(model.isConfiguration(withName: "People", compatibleWithStoreMetadata: metadata))
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [:]))
        #expect(!model.isConfiguration(withName: "Unknown", compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: model.entityVersionHashesByName]))
    }

    /// What goes into a property hash and what does not (store-format.md §12).
    @Test func versionHashInputs() {
        func hash(_ configure: (NSAttributeDescription) -> Void) -> Data {
            let attribute = NSAttributeDescription()
            attribute.name = "value"
            attribute.attributeType = .stringAttributeType
            configure(attribute)
            return attribute.versionHash
        }
        let base = hash { _ in }
        #expect(hash { $0.isOptional = false } != base)
        #expect(hash { $0.isTransient = true } != base)
        #expect(hash { $0.versionHashModifier = "x" } != base)
        #expect(hash { $0.attributeType = .integer32AttributeType } != base)
        #expect(hash { $0.preservesValueInHistoryOnDeletion = true } != base)
        #expect(hash { $0.defaultValue = "x" } == base)
        #expect(hash { $0.renamingIdentifier = "old" } == base)
        #expect(hash { $0.isIndexed = true } == base)
        #expect(hash { $0.userInfo = ["a": "b"] } == base)
        #expect(hash { $0.valueTransformerName = "T" } == base)
        let relationship = NSRelationshipDescription()
        relationship.name = "r"
        let before = relationship.versionHash
        relationship.deleteRule = .cascadeDeleteRule
        #expect(relationship.versionHash == before)
        relationship.isOrdered = true
        #expect(relationship.versionHash != before)
        // The property hash is P(p)-based: name ‖ int16 flags (optional=1) ‖ nothing else, then SHA-256 again.
        let empty = NSPropertyDescription()
        empty.name = "p"
        #expect(empty.versionHash == Data(SHA2.sha256(Array("p".utf8) + [1, 0])))
    }

    @Test func frozenModelsStopTheProgramWhenMutated() async {
        await #expect(processExitsWith: .failure) {
            let attribute = NSAttributeDescription()
            attribute.name = "title"
            let entity = NSEntityDescription()
            entity.name = "Book"
            entity.properties = [attribute]
            let model = NSManagedObjectModel()
            model.entities = [entity]
            model.freeze()
            attribute.name = "renamed"
        }
        await #expect(processExitsWith: .success) {
            let entity = NSEntityDescription()
            entity.name = "Book"
            let model = NSManagedObjectModel()
            model.entities = [entity]
            entity.name = "StillEditable"
            model.freeze()
            _ = entity.versionHash
        }
    }

    @Test func frozenModelsCacheButStillAnswer() throws {
        let model = try Self.libraryModel()
        let hashes = model.entityVersionHashesByName
        model.freeze()
        #expect(model.isFrozen)
        #expect(model.entityVersionHashesByName == hashes)
        #expect(model.entitiesByName["Ebook"]?.propertiesByName["title"] != nil)
        #expect(model.entityVersionHashesByName == hashes)
    }
}
