import Foundation
import Testing

@testable import OpenCoreData

/// Loading Xcode model packages: versions, current version, SwiftPM resources, what the model compiler derives.
@Suite struct ModelFileTests {
    static var libraryURL: URL { Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld")! }

    @Test func loadsVersionedPackageAndEveryVersionByName() throws {
        let url = Self.libraryURL
        #expect(try NSManagedObjectModel.versionNames(ofModelAt: url) == ["Library", "Library 2"])
        #expect(try NSManagedObjectModel.currentVersionName(ofModelAt: url) == "Library 2")
        let current = try NSManagedObjectModel(validatingContentsOf: url)
        #expect(current.versionIdentifiers == ["2"])
        #expect(Set(current.entitiesByName.keys) == ["Author", "Book", "Ebook"])
        let first = try NSManagedObjectModel(validatingContentsOf: url, versionName: "Library")
        #expect(first.versionIdentifiers == ["1"])
        #expect(Set(first.entitiesByName.keys) == ["Author", "Book"])
        // The same version through its own package path and Apple's failable initializer.
        let direct = try #require(NSManagedObjectModel(contentsOf: url.appendingPathComponent("Library.xcdatamodel")))
        #expect(direct.entityVersionHashesByName == first.entityVersionHashesByName)
        #expect(current.entityVersionHashesByName != first.entityVersionHashesByName)
    }

    @Test func mergedModelFindsSwiftPMResources() throws {
        // On Linux the test bundle's resources sit in a `*.resources` folder next to the test executable.
        let merged = try #require(NSManagedObjectModel.mergedModel(from: nil))
        #expect(merged.entitiesByName["Ebook"] != nil)
        #expect(merged.entitiesByName["Ebook"]?.superentity === merged.entitiesByName["Book"])
    }

    @Test func attributesAsTheModelCompilerMakesThem() throws {
        let model = try NSManagedObjectModel(validatingContentsOf: Self.libraryURL)
        let book = try #require(model.entitiesByName["Book"])
        let attributes = book.attributesByName
        #expect(attributes["id"]?.attributeType == .UUIDAttributeType)
        #expect(attributes["id"]?.attributeValueClassName == "NSUUID")
        #expect(attributes["cover"]?.allowsExternalBinaryDataStorage == true)
        #expect(attributes["price"]?.defaultValue as? NSDecimalNumber == NSDecimalNumber(string: "9.99"))
        #expect(attributes["rating"]?.defaultValue as? NSNumber == NSNumber(value: Float(2.5)))
        #expect(attributes["title"]?.defaultValue as? String == "Untitled")
        #expect(attributes["year"]?.defaultValue as? NSNumber == NSNumber(value: 1999))
        #expect(attributes["searchText"]?.isTransient == true)
        #expect(book.uniquenessConstraints.map { $0.map { "\($0)" } } == [["isbn"]])
        let index = try #require(book.indexes.first)
        #expect(index.name == "byYearAndTitle")
        #expect(index.elements.map(\.propertyName) == ["year", "title"])
        #expect(index.elements.map(\.isAscending) == [false, true])
        #expect(index.elements.first?.property === attributes["year"])
        #expect(index.entity === book)
    }

    @Test func validationRulesFromTheModelEditor() throws {
        let model = try NSManagedObjectModel(validatingContentsOf: Self.libraryURL)
        let author = try #require(model.entitiesByName["Author"])
        let name = try #require(author.attributesByName["name"])
        #expect(name._validationRules.map(\.predicateFormat) == ["length >= 1", "length <= 200", #"SELF MATCHES "[A-Z].*\\d?""#])
        #expect(name._validationRules.map { ($0.warning as? NSNumber)?.intValue } == [NSValidationStringTooShortError, NSValidationStringTooLongError, NSValidationStringPatternMatchingError])
        let born = try #require(author.attributesByName["born"])
        #expect(born._validationRules.map(\.predicateFormat) == [#"SELF >= CAST(-3155673600.000000, "NSDate")"#, #"SELF <= CAST(978307200.000000, "NSDate")"#])
        #expect(born._validationRules.map { ($0.warning as? NSNumber)?.intValue } == [NSValidationDateTooSoonError, NSValidationDateTooLateError])
        let rating = try #require(model.entitiesByName["Book"]?.attributesByName["rating"])
        #expect(rating._validationRules.map(\.predicateFormat) == ["SELF >= 0", "SELF <= 5"])
        #expect(rating._validationRules.map { ($0.warning as? NSNumber)?.intValue } == [NSValidationNumberTooSmallError, NSValidationNumberTooLargeError])
    }

    @Test func relationshipsFetchedPropertiesTemplatesAndConfigurations() throws {
        let model = try NSManagedObjectModel(validatingContentsOf: Self.libraryURL)
        let author = try #require(model.entitiesByName["Author"])
        let books = try #require(author.relationshipsByName["books"])
        #expect(books.isToMany && books.isOrdered)
        #expect((books.minCount, books.maxCount) == (1, 50))
        #expect(books.deleteRule == .denyDeleteRule)
        #expect(books.inverseRelationship === model.entitiesByName["Book"]?.relationshipsByName["author"])
        #expect(author.userInfo?["sync.remoteKey"] as? String == "writer")
        let fetched = try #require(author.propertiesByName["recentBooks"] as? NSFetchedPropertyDescription)
        #expect(fetched.fetchRequestEntityName == "Book")
        #expect(fetched.fetchRequestPredicateFormat == "author == $FETCH_SOURCE AND year > 2000")
        #expect(model._fetchRequestTemplates.map(\.name) == ["BooksAfter"])
        #expect(model._fetchRequestTemplates.first?.template.predicateFormat == "year > $YEAR")
        #expect(model.configurations == ["Catalog", "People"])
        #expect(model.entities(forConfigurationName: "Catalog")?.compactMap(\.name) == ["Book", "Ebook"])
        #expect(model.entities(forConfigurationName: "People")?.compactMap(\.name) == ["Author"])
        #expect(model.entities(forConfigurationName: nil)?.count == 3)
        #expect(model.entities(forConfigurationName: "Default")?.count == 3)
        #expect(model.entities(forConfigurationName: "Nope") == nil)
        // Fetched properties and transient attributes are not part of the version hash.
        let copy = model.copy() as! NSManagedObjectModel
        copy.entitiesByName["Author"]!.properties = copy.entitiesByName["Author"]!.properties.filter { !($0 is NSFetchedPropertyDescription) }
        #expect(copy.entitiesByName["Author"]!.versionHash == author.versionHash)
    }
}
