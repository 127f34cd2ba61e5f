import Foundation
import OpenCoreData
import Testing

/// A custom store written the way Apple's documentation describes `NSIncrementalStore` subclasses: rows in a
/// dictionary keyed by reference object, fetches evaluated with `NSPredicate` on the rows, saves applied from
/// the save request's managed objects.
final class DictionaryStore: NSIncrementalStore, @unchecked Sendable {
    // @unchecked Sendable: state is touched only under the coordinator's lock, as for every store.
    static let typeName = "OpenCoreDataTests.DictionaryStore"
    /// Rows by entity name and reference number: property values (to-one as the destination's reference).
    var rows: [String: [Int: [String: Any]]] = [:]
    var versions: [Int: UInt64] = [:]
    var nextReference = 1
    var calls: [String] = []
    /// The object IDs contexts reported as registered and unregistered, in order.
    var registered: [NSManagedObjectID] = []
    var unregistered: [NSManagedObjectID] = []

    override var type: String { Self.typeName }

    override func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) { registered += objectIDs }
    override func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) { unregistered += objectIDs }

    override func loadMetadata() throws {
        metadata = [NSStoreTypeKey: Self.typeName, NSStoreUUIDKey: "DICTIONARY-STORE-1"]
    }

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        calls.append("obtainPermanentIDs")
        return array.map { object in
            defer { nextReference += 1 }
            return newObjectID(for: object.entity, referenceObject: nextReference)
        }
    }

    private func reference(_ id: NSManagedObjectID) -> Int { referenceObject(for: id) as! Int }

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        if let save = request as? NSSaveChangesRequest {
            calls.append("save")
            for object in (save.insertedObjects ?? []).union(save.updatedObjects ?? []) {
                var row: [String: Any] = [:]
                for (name, property) in object.entity.propertiesByName {
                    if let relationship = property as? NSRelationshipDescription {
                        if !relationship.isToMany, let destination = object.value(forKey: name) as? NSManagedObject {
                            row[name] = reference(destination.objectID)
                        }
                    } else if let value = object.value(forKey: name) {
                        row[name] = value
                    }
                }
                rows[object.entity.name!, default: [:]][reference(object.objectID)] = row
                versions[reference(object.objectID), default: 0] += 1
            }
            for object in save.deletedObjects ?? [] {
                rows[object.entity.name!]?[reference(object.objectID)] = nil
            }
            return [Any]()
        }
        guard let fetch = request as? NSFetchRequest<NSFetchRequestResult>, let entity = fetch.entity else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreUnsupportedRequestTypeError)
        }
        calls.append("fetch")
        var matches = (rows[entity.name!] ?? [:]).filter { _, row in
            fetch.predicate?.evaluate(with: row) ?? true
        }.map(\.key).sorted()
        if fetch.fetchLimit > 0 { matches = Array(matches.prefix(fetch.fetchLimit)) }
        if fetch.resultType == .countResultType { return [NSNumber(value: matches.count)] }
        return matches.map { newObjectID(for: entity, referenceObject: $0) }
    }

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        calls.append("newValues")
        guard let row = rows[objectID.entity.name!]?[reference(objectID)] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectReferentialIntegrityError)
        }
        var values: [String: Any] = [:]
        for (name, value) in row {
            if let relationship = objectID.entity.relationshipsByName[name], let destination = relationship.destinationEntity {
                values[name] = newObjectID(for: destination, referenceObject: value as! Int)
            } else {
                values[name] = value
            }
        }
        return NSIncrementalStoreNode(objectID: objectID, withValues: values, version: versions[reference(objectID)] ?? 1)
    }

    override func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID, with context: NSManagedObjectContext?) throws -> Any {
        calls.append("newValue(\(relationship.name))")
        guard relationship.isToMany, let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity else { return NSNull() }
        let owner = reference(objectID)
        return (rows[destination.name!] ?? [:]).filter { $0.value[inverse.name] as? Int == owner }.map(\.key).sorted()
            .map { newObjectID(for: destination, referenceObject: $0) }
    }
}

@Suite("NSIncrementalStore: a custom store behind a coordinator")
struct IncrementalStoreTests {
    static func model() -> NSManagedObjectModel {
        let author = NSEntityDescription(), book = NSEntityDescription()
        author.name = "Author"
        book.name = "Book"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        let pages = NSAttributeDescription()
        pages.name = "pages"
        pages.attributeType = .integer32AttributeType
        let books = NSRelationshipDescription(), writer = NSRelationshipDescription()
        books.name = "books"
        books.destinationEntity = book
        books.maxCount = 0
        books.deleteRule = .cascadeDeleteRule
        writer.name = "author"
        writer.destinationEntity = author
        writer.maxCount = 1
        books.inverseRelationship = writer
        writer.inverseRelationship = books
        author.properties = [name, books]
        book.properties = [title, pages, writer]
        let model = NSManagedObjectModel()
        model.entities = [author, book]
        return model
    }

    static func stack() throws -> (NSManagedObjectContext, DictionaryStore) {
        NSPersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.typeName)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        let store = try coordinator.addPersistentStore(ofType: DictionaryStore.typeName, configurationName: nil,
                                                       at: URL(fileURLWithPath: "/dev/null"), options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, try #require(store as? DictionaryStore))
    }

    @Test("objects are saved, fetched, faulted and related through Apple's incremental-store calls")
    func roundTrip() throws {
        let (context, store) = try Self.stack()
        let uri = try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Le Guin", forKey: "name")
            for (title, pages) in [("Earthsea", 200), ("The Dispossessed", 380)] {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                book.setValue(title, forKey: "title")
                book.setValue(pages, forKey: "pages")
                book.setValue(author, forKey: "author")
            }
            try context.save()
            #expect(!author.objectID.isTemporaryID)
            return author.objectID.uriRepresentation()
        }
        #expect(store.calls.contains("obtainPermanentIDs"))
        #expect(store.calls.contains("save"))
        #expect(store.rows["Book"]?.count == 2)
        let authorReference = try #require(store.rows["Author"]?.keys.first)
        #expect(uri.absoluteString == "x-coredata://DICTIONARY-STORE-1/Author/p\(authorReference)")

        // A fresh context: fetch with a predicate, fire faults, follow relationships.
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = context.persistentStoreCoordinator
        try fresh.performAndWait {
            fresh.stalenessInterval = 0   // fire faults from the store, not the coordinator's row cache
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(format: "pages > %d", 300)
            let long = try fresh.fetch(request)
            #expect(long.count == 1)
            #expect(long.first?.value(forKey: "title") as? String == "The Dispossessed")
            #expect(store.calls.contains("newValues"))
            let author = try #require(long.first?.value(forKey: "author") as? NSManagedObject)
            #expect(author.value(forKey: "name") as? String == "Le Guin")
            let titles = ((author.value(forKey: "books") as? NSSet)?.allObjects as? [NSManagedObject])?.compactMap { $0.value(forKey: "title") as? String }
            #expect(Set(titles ?? []) == ["Earthsea", "The Dispossessed"])
            #expect(store.calls.contains("newValue(books)"))
            #expect(try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 2)

            // URIs resolve back to the same object; the coordinator executes requests for a context.
            let id = try #require(fresh.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
            #expect(try fresh.existingObject(with: id) === author)
            let viaCoordinator = try fresh.persistentStoreCoordinator!.execute(NSFetchRequest<NSManagedObject>(entityName: "Author"), with: fresh) as? [NSManagedObject]
            #expect(viaCoordinator?.first === author)

            // Deleting cascades, and the store is told.
            fresh.delete(author)
            try fresh.save()
        }
        #expect(store.rows["Book"]?.isEmpty ?? true)
        #expect(store.rows["Author"]?.isEmpty ?? true)
    }

    @Test("a store whose loadMetadata sets no type or UUID is refused")
    func metadataIsRequired() throws {
        final class NoMetadataStore: NSIncrementalStore, @unchecked Sendable {
            // @unchecked Sendable: no state.
            override func loadMetadata() throws {}
        }
        NSPersistentStoreCoordinator.registerStoreClass(NoMetadataStore.self, forStoreType: "NoMetadata")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect(throws: (any Error).self) {
            try coordinator.addPersistentStore(ofType: "NoMetadata", configurationName: nil, at: URL(fileURLWithPath: "/dev/null"), options: nil)
        }
    }
}
