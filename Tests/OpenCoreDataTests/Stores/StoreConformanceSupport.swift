import OpenCoreData
import Testing

// The fixtures of the store-conformance suite (`StoreConformanceTests`): the store kinds it runs against, a stack
// per kind, and a model built in code with Apple's API that uses every attribute type and every relationship shape.

// MARK: - Store kinds

/// A store implementation the conformance suite runs against. Every conformance test takes one as its argument
/// (`@Test(arguments: StoreKind.allCases)`), so a new store — a custom `NSIncrementalStore`, the binary store — joins
/// the suite by adding a case here and answering the questions below for it (a custom store type also registers
/// its class with `NSPersistentStoreCoordinator.registerStoreClass(_:forStoreType:)` before `storeType` is used).
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `NSInMemoryStoreType`.
    case inMemory
    /// `NSSQLiteStoreType`, on a fresh file in a temporary directory.
    case sqlite
    /// `NSBinaryStoreType` (an `NSAtomicStore`), on a fresh file in a temporary directory.
    case binary
    /// `JSONFileStore`: a custom `NSIncrementalStore` written in the tests, one JSON file per entity.
    case customIncremental

    var testDescription: String { rawValue }

    /// The stores that execute batch requests (`NSBatchInsertRequest`, `NSBatchUpdateRequest`, `NSBatchDeleteRequest`):
    /// Apple's SQLite store, and OpenCoreData's in-memory store. Atomic and custom stores refuse them with
    /// `NSPersistentStoreUnsupportedRequestTypeError`, as Apple's do.
    static let batchCapable: [StoreKind] = [.inMemory, .sqlite]

    /// The type string passed to `addPersistentStore(ofType:…)`.
    var storeType: String {
        switch self {
        case .inMemory: return NSInMemoryStoreType
        case .sqlite: return NSSQLiteStoreType
        case .binary: return NSBinaryStoreType
        case .customIncremental:
            JSONFileStore.register()
            return JSONFileStore.typeName
        }
    }

    /// The store's file in a fresh temporary directory, or nil for a store without one.
    var fileName: String? {
        switch self {
        case .inMemory: return nil
        case .sqlite: return "Store.sqlite"
        case .binary: return "Store.binarystore"
        case .customIncremental: return "JSONStore"
        }
    }

    /// Whether the store lives in a file, so a new coordinator can reopen what another one saved.
    var persistsAcrossCoordinators: Bool { fileName != nil }

    /// Whether `key != value` matches objects whose `key` is nil.
    ///
    /// NSPredicate evaluated in memory says yes (`nil != "x"` is true), and so does Apple's in-memory store, which
    /// evaluates predicates that way. Apple's SQLite store translates `!=` to SQL `<>`, whose three-valued logic
    /// drops NULL rows (https://douglashill.co/nspredicate-null-inequality/), also through a to-one key path
    /// (`owner.name != 'x'` drops objects with no owner).
    var inequalityMatchesNil: Bool {
        switch self {
        case .inMemory, .binary, .customIncremental: return true   // evaluated in memory
        case .sqlite: return false
        }
    }

    /// Whether a Decimal attribute keeps every digit. The SQLite store keeps decimals in a REAL column, as Apple's
    /// does, so only a double's 15–17 significant digits survive a round trip; the in-memory store keeps the
    /// `Decimal` itself.
    var keepsDecimalsExactly: Bool {
        switch self {
        case .inMemory, .binary, .customIncremental: return true   // decimal strings in the file
        case .sqlite: return false
        }
    }
}

// MARK: - Stacks

/// A temporary directory, removed with its contents when the last stack that uses it goes away.
final class TemporaryStoreDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("OpenCoreDataStores-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A coordinator with one store of a kind, and contexts on it.
final class ConformanceStack {
    let kind: StoreKind
    let model: NSManagedObjectModel
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore
    /// The store's file (nil for stores without one).
    let storeURL: URL?
    /// Keeps the store's directory alive as long as a stack uses it.
    let directory: TemporaryStoreDirectory?

    /// A new, empty store of `kind`.
    convenience init(_ kind: StoreKind, model: NSManagedObjectModel = ConformanceModel.shared, options: [AnyHashable: Any]? = nil) throws {
        let directory = kind.persistsAcrossCoordinators ? try TemporaryStoreDirectory() : nil
        try self.init(kind, model: model, directory: directory, options: options)
    }

    /// The store of `kind` in `directory` (created, or reopened when the file exists).
    init(_ kind: StoreKind, model: NSManagedObjectModel, directory: TemporaryStoreDirectory?, options: [AnyHashable: Any]? = nil) throws {
        self.kind = kind
        self.model = model
        self.directory = directory
        storeURL = kind.fileName.flatMap { name in directory?.url.appendingPathComponent(name) }
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(ofType: kind.storeType, configurationName: nil, at: storeURL, options: options)
    }

    /// A new private-queue context on the coordinator.
    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// A stack that reads what this one saved from the store itself: a new coordinator on the same file (so no row
    /// cache or registered object can answer instead of the store) when the store has one, this stack otherwise.
    func reopened() throws -> ConformanceStack {
        guard kind.persistsAcrossCoordinators else { return self }
        return try ConformanceStack(kind, model: model, directory: directory)
    }

    /// Removes the store from its coordinator (closing its file).
    func close() throws {
        try coordinator.remove(store)
    }
}

// MARK: - The model

/// The model every conformance test uses, built in code with Apple's API:
///
/// - `Sample`: one attribute of every type — Integer 16/32/64, Decimal, Double, Float, String, Boolean, Date, Binary
///   Data (also with external storage), UUID, URI, Transformable (`ConformanceColorTransformer`, registered by name) —
///   and a to-one `owner`.
/// - `Person` (uniqueness constraint on `email`): one-to-many `samples` (nullify), one-to-many `pets` (cascade),
///   ordered one-to-many `tasks` (cascade), many-to-many `groups` (nullify).
/// - `Animal` (abstract) with sub-entities `Dog` and `Cat`; to-one `owner` (nullify).
/// - `Task` (to-one `person`), `Group` (many-to-many `members`, nullify).
enum ConformanceModel {
    /// The model shared by the suite's stacks (its version hashes never change, so any stack reopens any file).
    static let shared: NSManagedObjectModel = make()

    /// A new copy of the model; `extraPersonAttribute` adds an attribute, which changes the model's version hashes.
    static func make(extraPersonAttribute: String? = nil) -> NSManagedObjectModel {
        ConformanceColorTransformer.register()

        let sample = entity("Sample")
        let person = entity("Person")
        let animal = entity("Animal")
        let dog = entity("Dog")
        let cat = entity("Cat")
        let task = entity("Task")
        let group = entity("Group")
        animal.isAbstract = true

        let sampleOwner = relationship("owner", to: person, rule: .nullifyDeleteRule)
        let personSamples = relationship("samples", to: sample, toMany: true, rule: .nullifyDeleteRule)
        let personPets = relationship("pets", to: animal, toMany: true, rule: .cascadeDeleteRule)
        let animalOwner = relationship("owner", to: person, rule: .nullifyDeleteRule)
        let personTasks = relationship("tasks", to: task, toMany: true, ordered: true, rule: .cascadeDeleteRule)
        let taskPerson = relationship("person", to: person, rule: .nullifyDeleteRule)
        let personGroups = relationship("groups", to: group, toMany: true, rule: .nullifyDeleteRule)
        let groupMembers = relationship("members", to: person, toMany: true, rule: .nullifyDeleteRule)
        pair(sampleOwner, personSamples)
        pair(animalOwner, personPets)
        pair(taskPerson, personTasks)
        pair(personGroups, groupMembers)

        let bigData = attribute("bigData", .binaryDataAttributeType)
        bigData.allowsExternalBinaryDataStorage = true
        let color = attribute("color", .transformableAttributeType)
        color.valueTransformerName = ConformanceColorTransformer.name.rawValue
        color.attributeValueClassName = "ConformanceColor"
        sample.properties = [
            attribute("int16", .integer16AttributeType), attribute("int32", .integer32AttributeType),
            attribute("int64", .integer64AttributeType), attribute("decimal", .decimalAttributeType),
            attribute("double", .doubleAttributeType), attribute("float", .floatAttributeType),
            attribute("string", .stringAttributeType), attribute("bool", .booleanAttributeType),
            attribute("date", .dateAttributeType), attribute("data", .binaryDataAttributeType), bigData,
            attribute("uuid", .UUIDAttributeType), attribute("uri", .URIAttributeType), color, sampleOwner,
        ]
        var personProperties: [NSPropertyDescription] = [
            attribute("name", .stringAttributeType), attribute("age", .integer32AttributeType),
            attribute("nickname", .stringAttributeType), attribute("email", .stringAttributeType),
            attribute("birthday", .dateAttributeType), personSamples, personPets, personTasks, personGroups,
        ]
        if let extraPersonAttribute { personProperties.append(attribute(extraPersonAttribute, .stringAttributeType)) }
        person.properties = personProperties
        person.uniquenessConstraints = [["email"]]
        animal.properties = [attribute("name", .stringAttributeType), attribute("legs", .integer16AttributeType), animalOwner]
        dog.properties = [attribute("breed", .stringAttributeType)]
        cat.properties = [attribute("indoor", .booleanAttributeType)]
        animal.subentities = [dog, cat]
        task.properties = [attribute("title", .stringAttributeType), attribute("priority", .integer16AttributeType), taskPerson]
        group.properties = [attribute("title", .stringAttributeType), groupMembers]

        let model = NSManagedObjectModel()
        model.entities = [sample, person, animal, dog, cat, task, group]
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

    private static func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool = false, ordered: Bool = false,
                                     rule: NSDeleteRule) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.minCount = 0
        relationship.maxCount = toMany ? 0 : 1
        relationship.isOrdered = ordered
        relationship.deleteRule = rule
        relationship.isOptional = true
        return relationship
    }

    private static func pair(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
        a.inverseRelationship = b
        b.inverseRelationship = a
    }
}

// MARK: - The transformable value

/// The value of `Sample.color`: an object (not a Foundation type) that only a custom transformer can store.
final class ConformanceColor: NSObject {
    let red: UInt8, green: UInt8, blue: UInt8

    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
        super.init()
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? ConformanceColor else { return false }
        return (red, green, blue) == (other.red, other.green, other.blue)
    }

    override var hash: Int { Int(red) << 16 | Int(green) << 8 | Int(blue) }
    override var description: String { "ConformanceColor(\(red), \(green), \(blue))" }
}

/// A custom transformer, registered by name: color → 4 bytes (a tag and the components) and back. As Apple documents
/// for custom transformers of transformable attributes, the forward direction produces the stored data.
final class ConformanceColorTransformer: ValueTransformer {
    static let name = NSValueTransformerName("ConformanceColorTransformer")

    static func register() {
        if ValueTransformer(forName: name) == nil { ValueTransformer.setValueTransformer(ConformanceColorTransformer(), forName: name) }
    }

    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let color = value as? ConformanceColor else { return nil }
        return Data([0xC0, color.red, color.green, color.blue])
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, data.count == 4, data.first == 0xC0 else { return nil }
        let bytes = Array(data)
        return ConformanceColor(red: bytes[1], green: bytes[2], blue: bytes[3])
    }
}

// MARK: - Helpers

extension NSManagedObjectContext {
    /// Inserts an object of `entityName` with `values` set through key-value coding.
    @discardableResult
    func insertObject(_ entityName: String, _ values: [String: Any?] = [:]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entityName, into: self)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    /// The objects of `entityName` that match `format` (nil: all), in the order of `sortKeys` (`"-key"` descends).
    func objects(_ entityName: String, _ format: String? = nil, _ arguments: [Any] = [], sortedBy sortKeys: [String] = [],
                 configure: (NSFetchRequest<NSManagedObject>) -> Void = { _ in }) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        if let format { request.predicate = NSPredicate(format: format, argumentArray: arguments) }
        if !sortKeys.isEmpty {
            request.sortDescriptors = sortKeys.map { key in
                key.hasPrefix("-") ? NSSortDescriptor(key: String(key.dropFirst()), ascending: false) : NSSortDescriptor(key: key, ascending: true)
            }
        }
        configure(request)
        return try fetch(request)
    }

    /// The one object of `entityName` whose `key` is `value`.
    func only(_ entityName: String, _ key: String, _ value: Any) throws -> NSManagedObject {
        let matches = try objects(entityName, "%K == %@", [key, value])
        guard matches.count == 1 else {
            throw ConformanceFailure("\(matches.count) \(entityName) objects with \(key) == \(value), expected one")
        }
        return matches[0]
    }
}

extension NSManagedObject {
    /// A string attribute (or "<nil>").
    func string(_ key: String) -> String { value(forKey: key) as? String ?? "<nil>" }

    /// The `key` strings of the objects of a to-many relationship (in order for ordered ones, sorted otherwise).
    func memberStrings(_ relationship: String, _ key: String = "name") -> [String] {
        switch value(forKey: relationship) {
        case let ordered as NSOrderedSet: return ordered.array.map { ($0 as! NSManagedObject).string(key) }
        case let set as NSSet: return set.allObjects.map { ($0 as! NSManagedObject).string(key) }.sorted()
        default: return []
        }
    }
}

/// The `key` strings of objects, in order.
func strings(_ objects: [NSManagedObject], _ key: String = "name") -> [String] { objects.map { $0.string(key) } }

/// A failed precondition of a conformance test (not a library error).
struct ConformanceFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
