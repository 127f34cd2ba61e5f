import OpenCoreData
import Synchronization
import Testing

// A second, small model for what Moody does not have: cascade and deny delete rules, relationship counts,
// an ordered relationship, a per-key validation rule and lifecycle hooks. Built in code with Apple's API.
//
//   Author  ──books (cascade)──▶> Book <<──books (deny)── Publisher
//   Shelf   ──books (ordered, required, 2…3)──▶> Book      Note (records its lifecycle hooks)

/// An author whose class adds a per-key rule with Apple's override point, `validateValue(_:forKey:)`.
final class LibraryAuthor: NSManagedObject {
    @Managed var name: String?
    @Managed var books: Set<NSManagedObject>

    static let emptyNameCode = NSValidationStringTooShortError

    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        try super.validateValue(&value, forKey: key)
        if key == "name", let name = value as? String, name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw NSError(domain: NSCocoaErrorDomain, code: Self.emptyNameCode, userInfo: [
                NSValidationObjectErrorKey: self, NSValidationKeyErrorKey: key, NSValidationValueErrorKey: name,
                NSLocalizedDescriptionKey: "An author needs a name.",
            ])
        }
    }
}

/// A note that records every lifecycle hook Core Data calls on it, in order.
final class LibraryNote: NSManagedObject {
    @Managed var text: String?
    @Managed var pinned: Bool
    private(set) var hooks: [String] = []
    private(set) var snapshotEvents: [NSSnapshotEventType] = []

    override func awakeFromInsert() { super.awakeFromInsert(); hooks.append("awakeFromInsert") }
    override func awakeFromFetch() {
        super.awakeFromFetch()
        hooks.append("awakeFromFetch")
        // Apple: change processing is disabled around awakeFromFetch, so public setters do not dirty the object.
        if text == "pin on fetch" { pinned = true }
    }
    override func awake(fromSnapshotEvents flags: NSSnapshotEventType) {
        super.awake(fromSnapshotEvents: flags)
        hooks.append("awakeFromSnapshotEvents")
        snapshotEvents.append(flags)
    }
    override func willSave() { super.willSave(); hooks.append("willSave") }
    override func didSave() { super.didSave(); hooks.append("didSave") }
    override func prepareForDeletion() { super.prepareForDeletion(); hooks.append("prepareForDeletion") }
    override func willTurnIntoFault() { super.willTurnIntoFault(); hooks.append("willTurnIntoFault") }
    override func didTurnIntoFault() { super.didTurnIntoFault(); hooks.append("didTurnIntoFault") }

    func clearHooks() { hooks = []; snapshotEvents = [] }
}

enum LibraryGraph {
    static let shared: NSManagedObjectModel = make()

    static func make() -> NSManagedObjectModel {
        func entity(_ name: String, _ className: String? = nil) -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            if let className { entity.managedObjectClassName = className }
            return entity
        }
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, default value: Any? = nil) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            attribute.defaultValue = value
            return attribute
        }
        func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool, rule: NSDeleteRule) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = destination
            relationship.maxCount = toMany ? 0 : 1
            relationship.deleteRule = rule
            return relationship
        }
        func pair(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
            a.inverseRelationship = b
            b.inverseRelationship = a
        }
        let author = entity("Author", "LibraryAuthor"), book = entity("Book"), publisher = entity("Publisher")
        let shelf = entity("Shelf"), note = entity("Note", "LibraryNote")

        let authorBooks = relationship("books", to: book, toMany: true, rule: .cascadeDeleteRule)
        let bookAuthor = relationship("author", to: author, toMany: false, rule: .nullifyDeleteRule)
        let publisherBooks = relationship("books", to: book, toMany: true, rule: .denyDeleteRule)
        let bookPublisher = relationship("publisher", to: publisher, toMany: false, rule: .nullifyDeleteRule)
        let shelfBooks = relationship("books", to: book, toMany: true, rule: .nullifyDeleteRule)
        shelfBooks.isOrdered = true
        shelfBooks.isOptional = false
        shelfBooks.minCount = 2
        shelfBooks.maxCount = 3
        let bookShelf = relationship("shelf", to: shelf, toMany: false, rule: .nullifyDeleteRule)
        pair(authorBooks, bookAuthor)
        pair(publisherBooks, bookPublisher)
        pair(shelfBooks, bookShelf)

        author.properties = [attribute("name", .stringAttributeType), authorBooks]
        book.properties = [attribute("title", .stringAttributeType), bookAuthor, bookPublisher, bookShelf]
        publisher.properties = [attribute("name", .stringAttributeType), publisherBooks]
        shelf.properties = [attribute("label", .stringAttributeType), shelfBooks]
        note.properties = [attribute("text", .stringAttributeType), attribute("pinned", .booleanAttributeType, optional: false, default: false)]

        let model = NSManagedObjectModel()
        model.entities = [author, book, publisher, shelf, note]
        return model
    }
}

/// An in-memory stack on the library model.
struct LibraryStack {
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext

    init() throws {
        NSManagedObjectModel.registerManagedObjectClasses([LibraryAuthor.self, LibraryNote.self])
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: LibraryGraph.shared)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Inserts an object of `entityName` with the given values (through key-value coding).
    @discardableResult
    static func insert(_ entityName: String, into context: NSManagedObjectContext, _ values: [String: Any] = [:]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entityName, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }
}

// MARK: - Shared helpers

/// Runs `body`, which must throw an `NSError` in `NSCocoaErrorDomain` with `code`, and returns that error.
@discardableResult
func expectCocoaError(_ code: Int, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                      _ body: () throws -> Void) -> NSError? {
    do {
        try body()
        Issue.record("Expected Cocoa error \(code), but nothing was thrown. \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
        return nil
    } catch let error as NSError {
        #expect(error.domain == NSCocoaErrorDomain, comment, sourceLocation: sourceLocation)
        #expect(error.code == code, "\(comment.map { "\($0): " } ?? "")got \(error.code): \(error.localizedDescription)", sourceLocation: sourceLocation)
        return error
    }
}

/// Counts the objects of an entity as a fresh context of the coordinator sees them (the store's truth).
func storedCount(_ entityName: String, _ coordinator: NSPersistentStoreCoordinator, predicate: NSPredicate? = nil) throws -> Int {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return try context.performAndWait {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        request.predicate = predicate
        return try context.count(for: request)
    }
}

/// Records the notifications of one name posted by one object; values are extracted in the observer, on the
/// poster's thread, so only `Sendable` summaries leave it.
final class NotificationLog<Entry: Sendable> {
    private final class Storage: Sendable {
        let entries = Mutex<[Entry]>([])
    }
    private let storage: Storage
    private let token: NSObjectProtocol

    init(_ name: Notification.Name, object: AnyObject, _ summarize: @escaping @Sendable (Notification) -> Entry) {
        let expected = ObjectIdentifier(object)
        let storage = Storage()
        self.storage = storage
        token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
            guard let poster = note.object as AnyObject?, ObjectIdentifier(poster) == expected else { return }
            let entry = summarize(note)
            storage.entries.withLock { $0.append(entry) }
        }
    }

    var all: [Entry] { storage.entries.withLock { $0 } }
    var count: Int { storage.entries.withLock { $0.count } }

    deinit { NotificationCenter.default.removeObserver(token) }
}

/// The object IDs of the managed objects in a notification's userInfo set under `key`.
func objectIDs(_ note: Notification, _ key: String) -> Set<NSManagedObjectID>? {
    guard let objects = note.userInfo?[key] as? Set<NSManagedObject> else { return nil }
    return Set(objects.map(\.objectID))
}
