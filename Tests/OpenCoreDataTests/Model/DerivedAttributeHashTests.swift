import Foundation
import Testing

@testable import OpenCoreData

/// CoreDataPlus's SampleModel2 V1 — a model built in code with fetched properties, a URI attribute, an abstract
/// super-entity, `maxCount = Int.max` and a derived attribute (`pagesCount = pages.@count`) — rebuilt here with
/// OpenCoreData's API: the hashes of its entities equal the ones Apple's Core Data stored for them, including the
/// two whose hash includes the derived attribute (SHA256 of the expression's format, found from the store's own
/// model cache).
@Suite("Corpus: a code-built model with fetched properties and a derived attribute", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct DerivedAttributeHashTests {
    static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        return attribute
    }

    static func entity(_ name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = name
        return entity
    }

    static func sampleModel2V1() -> NSManagedObjectModel {
        let writer = entity("Writer"), author = entity("Author"), book = entity("Book")
        let graphicNovel = entity("GraphicNovel"), page = entity("Page"), feedback = entity("Feedback")
        writer.isAbstract = true
        writer.properties = [attribute("age", .integer16AttributeType, optional: false)]
        let alias = attribute("alias", .stringAttributeType, optional: false)
        let feedbacks = NSFetchedPropertyDescription()
        feedbacks.name = "feedbacks"
        let feedbackRequest = NSFetchRequest<NSFetchRequestResult>(entityName: "Feedback")
        feedbackRequest.predicate = NSPredicate(format: "%K == $FETCH_SOURCE.%K", "authorAlias", "alias")
        feedbacks.fetchRequest = feedbackRequest
        let booksRelationship = NSRelationshipDescription(), bookAuthor = NSRelationshipDescription()
        booksRelationship.name = "books"
        booksRelationship.destinationEntity = book
        booksRelationship.minCount = 0
        booksRelationship.maxCount = .max
        booksRelationship.deleteRule = .cascadeDeleteRule
        bookAuthor.name = "author"
        bookAuthor.destinationEntity = author
        bookAuthor.isOptional = false
        bookAuthor.minCount = 1
        bookAuthor.maxCount = 1
        booksRelationship.inverseRelationship = bookAuthor
        bookAuthor.inverseRelationship = booksRelationship
        author.properties = [alias, attribute("siteURL", .URIAttributeType, optional: true), feedbacks, booksRelationship]
        author.uniquenessConstraints = [["alias"]]
        let pages = NSRelationshipDescription(), pageBook = NSRelationshipDescription()
        pages.name = "pages"
        pages.destinationEntity = page
        pages.isOptional = false
        pages.minCount = 1
        pages.maxCount = 10_000
        pages.deleteRule = .cascadeDeleteRule
        pageBook.name = "book"
        pageBook.destinationEntity = book
        pageBook.isOptional = false
        pageBook.minCount = 1
        pageBook.maxCount = 1
        pages.inverseRelationship = pageBook
        pageBook.inverseRelationship = pages
        let pagesCount = NSDerivedAttributeDescription()
        pagesCount.name = "pagesCount"
        pagesCount.attributeType = .integer64AttributeType
        pagesCount.derivationExpression = NSExpression(format: "pages.@count")
        pagesCount.isOptional = true
        book.properties = [
            attribute("uniqueID", .UUIDAttributeType, optional: false), attribute("title", .stringAttributeType, optional: false),
            attribute("price", .decimalAttributeType, optional: false), attribute("cover", .transformableAttributeType, optional: false),
            attribute("publishedAt", .dateAttributeType, optional: false), pagesCount, bookAuthor, pages,
        ]
        book.uniquenessConstraints = [["uniqueID"]]
        page.properties = [attribute("isBookmarked", .booleanAttributeType, optional: false), attribute("number", .integer32AttributeType, optional: false),
                           attribute("content", .transformableAttributeType, optional: false), pageBook]
        graphicNovel.properties = [attribute("isBlackAndWhite", .booleanAttributeType, optional: false)]
        feedback.properties = [attribute("authorAlias", .stringAttributeType, optional: false), attribute("bookID", .UUIDAttributeType, optional: false),
                               attribute("comment", .stringAttributeType, optional: true), attribute("rating", .doubleAttributeType, optional: false)]
        writer.subentities = [author]
        book.subentities = [graphicNovel]
        let model = NSManagedObjectModel()
        model.entities = [writer, author, book, graphicNovel, page, feedback]
        return model
    }

    @Test func codeBuiltModelHashesLikeApple() throws {
        let metadata = try RawStoreMetadata.read(Corpus.storeCopy("alemar11__CoreDataPlus__SampleModel2_V1.sqlite"))
        let stored = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data])
        let computed = Self.sampleModel2V1().entityVersionHashesByName
        #expect(Set(stored.keys) == Set(computed.keys))
        for (name, hash) in stored {
            #expect(computed[name] == hash, "entity \(name)")
        }
    }

    @Test("a derived attribute hashes as SHA256 of its expression's format, x.@count written count:(x)")
    func derivedAttributeHash() {
        let derived = NSDerivedAttributeDescription()
        derived.name = "pagesCount"
        derived.attributeType = .integer64AttributeType
        derived.derivationExpression = NSExpression(format: "pages.@count")
        #expect(derived.versionHash == Data(SHA2.sha256(Array("count:(pages)".utf8))))
    }
}
