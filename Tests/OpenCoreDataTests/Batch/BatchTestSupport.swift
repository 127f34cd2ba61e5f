import OpenCoreData
import Testing

// Fixtures of the batch request suites: a model built in code with Apple's API that has the shapes batch requests
// care about, and a stack per store kind (`StoreKind`, `ConformanceStack` from the store-conformance suite).

/// The model of the batch suites:
///
/// - `Item` (name, rating Int32 default 7, price Double, flag Bool, stamp Date, payload Binary with external
///   storage) and its sub-entity `SpecialItem` (level Int16).
/// - `Product` with a uniqueness constraint on `code` (name, stock Int64).
/// - `Author` —books (to-many, cascade)→ `Book` —author (to-one, nullify); `Publisher` —books (to-many, nullify)→
///   `Book` —publisher (to-one, nullify); `Book` —tags (many-to-many, nullify)— `Tag`.
/// - `Vault` —items (to-many, **deny**)→ `VaultItem`.
/// - `Passport` —owner (to-one, nullify)→ `Person` —passport (to-one, nullify, **mandatory**).
/// - `Shelf` —items (to-many, **no action**)→ `ShelfItem` —shelf (to-one, nullify).
enum BatchModel {
    static let shared: NSManagedObjectModel = make()

    static func make() -> NSManagedObjectModel {
        let item = entity("Item"), special = entity("SpecialItem"), product = entity("Product")
        let author = entity("Author"), book = entity("Book"), publisher = entity("Publisher"), tag = entity("Tag")
        let vault = entity("Vault"), vaultItem = entity("VaultItem"), passport = entity("Passport"), person = entity("Person")
        let shelf = entity("Shelf"), shelfItem = entity("ShelfItem")

        let rating = attribute("rating", .integer32AttributeType)
        rating.defaultValue = 7
        let payload = attribute("payload", .binaryDataAttributeType)
        payload.allowsExternalBinaryDataStorage = true
        item.properties = [attribute("name", .stringAttributeType), rating, attribute("price", .doubleAttributeType),
                           attribute("flag", .booleanAttributeType), attribute("stamp", .dateAttributeType), payload]
        special.properties = [attribute("level", .integer16AttributeType)]
        item.subentities = [special]

        product.properties = [attribute("code", .stringAttributeType), attribute("name", .stringAttributeType), attribute("stock", .integer64AttributeType)]
        product.uniquenessConstraints = [["code"]]

        let authorBooks = relationship("books", to: book, toMany: true, rule: .cascadeDeleteRule)
        let bookAuthor = relationship("author", to: author, rule: .nullifyDeleteRule)
        let publisherBooks = relationship("books", to: book, toMany: true, rule: .nullifyDeleteRule)
        let bookPublisher = relationship("publisher", to: publisher, rule: .nullifyDeleteRule)
        let bookTags = relationship("tags", to: tag, toMany: true, rule: .nullifyDeleteRule)
        let tagBooks = relationship("books", to: book, toMany: true, rule: .nullifyDeleteRule)
        pair(authorBooks, bookAuthor)
        pair(publisherBooks, bookPublisher)
        pair(bookTags, tagBooks)
        author.properties = [attribute("name", .stringAttributeType), authorBooks]
        book.properties = [attribute("title", .stringAttributeType), attribute("pages", .integer32AttributeType), bookAuthor, bookPublisher, bookTags]
        publisher.properties = [attribute("name", .stringAttributeType), publisherBooks]
        tag.properties = [attribute("name", .stringAttributeType), tagBooks]

        let vaultItems = relationship("items", to: vaultItem, toMany: true, rule: .denyDeleteRule)
        let itemVault = relationship("vault", to: vault, rule: .nullifyDeleteRule)
        pair(vaultItems, itemVault)
        vault.properties = [attribute("name", .stringAttributeType), vaultItems]
        vaultItem.properties = [attribute("name", .stringAttributeType), itemVault]

        let passportOwner = relationship("owner", to: person, rule: .nullifyDeleteRule)
        let personPassport = relationship("passport", to: passport, rule: .nullifyDeleteRule)
        personPassport.isOptional = false
        pair(passportOwner, personPassport)
        passport.properties = [attribute("number", .stringAttributeType), passportOwner]
        person.properties = [attribute("name", .stringAttributeType), personPassport]

        let shelfItems = relationship("items", to: shelfItem, toMany: true, rule: .noActionDeleteRule)
        let itemShelf = relationship("shelf", to: shelf, rule: .nullifyDeleteRule)
        pair(shelfItems, itemShelf)
        shelf.properties = [attribute("name", .stringAttributeType), shelfItems]
        shelfItem.properties = [attribute("name", .stringAttributeType), itemShelf]

        let model = NSManagedObjectModel()
        model.entities = [item, special, product, author, book, publisher, tag, vault, vaultItem, passport, person, shelf, shelfItem]
        return model
    }

    private static func entity(_ name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = "NSManagedObject"
        return entity
    }

    private static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = true
        return attribute
    }

    private static func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool = false, rule: NSDeleteRule) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.minCount = 0
        relationship.maxCount = toMany ? 0 : 1
        relationship.deleteRule = rule
        relationship.isOptional = true
        return relationship
    }

    private static func pair(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
        a.inverseRelationship = b
        b.inverseRelationship = a
    }
}

/// A stack of one store kind on the batch model, with helpers that run work in a context.
final class BatchStack {
    let stack: ConformanceStack
    var coordinator: NSPersistentStoreCoordinator { stack.coordinator }
    var store: NSPersistentStore { stack.store }

    init(_ kind: StoreKind) throws {
        stack = try ConformanceStack(kind, model: BatchModel.shared)
    }

    /// A new private-queue context.
    func newContext() -> NSManagedObjectContext { stack.newContext() }

    /// Runs `body` in a new context and returns its result.
    func run<T>(_ body: (NSManagedObjectContext) throws -> T) throws -> T {
        let context = newContext()
        return try context.performAndWait { try body(context) }
    }

    /// Objects of an entity (in a fresh context), sorted by `key`.
    func fetch(_ entityName: String, _ predicate: NSPredicate? = nil, sortedBy key: String = "name") throws -> [NSManagedObject] {
        try run { context in
            let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
            request.predicate = predicate
            request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
            request.returnsObjectsAsFaults = false
            return try context.fetch(request)
        }
    }

    /// The number of objects of an entity (in a fresh context).
    func count(_ entityName: String, _ predicate: NSPredicate? = nil) throws -> Int {
        try run { context in
            let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
            request.predicate = predicate
            return try context.count(for: request)
        }
    }

    /// Saves `count` items named `item-0000`, … with rating `i % 10` and price `i`.
    @discardableResult
    func seedItems(_ count: Int, entityName: String = "Item") throws -> [NSManagedObjectID] {
        try run { context in
            var objects: [NSManagedObject] = []
            for index in 0..<count {
                let item = NSEntityDescription.insertNewObject(forEntityName: entityName, into: context)
                item.setValue(String(format: "item-%04d", index), forKey: "name")
                item.setValue(index % 10, forKey: "rating")
                item.setValue(Double(index), forKey: "price")
                objects.append(item)
            }
            try context.save()
            return objects.map(\.objectID)
        }
    }
}

/// The number of rows the large batch tests use: `OPENCOREDATA_BATCH_ROWS`, or 20,000 — what keeps the suite's
/// large cases within CI's time on two cores in a debug build (about 9 s). With 100,000 rows
/// (`OPENCOREDATA_BATCH_ROWS=100000 swift test --filter BatchMergeTests`) the large cases take 28–52 s of wall time
/// (26 s of CPU) on a shared two-core machine; the `[batch timing]` lines they print give each step.
enum BatchScale {
    static var rows: Int {
        ProcessInfo.processInfo.environment["OPENCOREDATA_BATCH_ROWS"].flatMap(Int.init) ?? 20_000
    }
}

/// Reads an `NSNumber` result as an `Int`.
func batchNumber(_ value: Any?) -> Int? {
    (value as? NSNumber)?.intValue
}

/// The error `body` throws, as an `NSError` (nil if it does not throw).
func caughtError(_ body: () throws -> Any) -> NSError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as NSError
    }
}
