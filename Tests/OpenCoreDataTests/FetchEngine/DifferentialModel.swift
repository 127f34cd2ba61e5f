import OpenCoreData

// The model and the generated data of the differential test (`DifferentialPredicateTests`): a model built in code
// with Apple's API that has every attribute type a predicate can compare and every relationship shape, a seeded
// random number generator, and data inserted identically into an in-memory and an SQLite store.

// MARK: - Random numbers

/// SplitMix64: small, fast and the same on every platform, so a seed replays the same data and predicates.
struct DifferentialRNG: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// The generator of one stream (`0`: data, `1 + n`: case `n`), so the data does not depend on the number of cases
    /// and one case can be replayed alone.
    init(seed: UInt64, stream: UInt64) {
        var mixer = DifferentialRNG(seed: seed ^ (stream &* 0x9E37_79B9_7F4A_7C15))
        state = mixer.next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

    mutating func pick<T>(_ elements: [T]) -> T { elements[Int.random(in: 0..<elements.count, using: &self)] }

    /// A pick weighted by the first element of each pair.
    mutating func weighted<T>(_ choices: [(Int, T)]) -> T {
        var roll = Int.random(in: 0..<choices.reduce(0) { $0 + $1.0 }, using: &self)
        for (weight, value) in choices {
            if roll < weight { return value }
            roll -= weight
        }
        return choices[choices.count - 1].1
    }

    /// `count` distinct elements (fewer if there are not that many), in random order.
    mutating func sample<T>(_ elements: [T], count: Int) -> [T] {
        Array(elements.shuffled(using: &self).prefix(count))
    }
}

// MARK: - Schema

/// The attribute types a predicate can compare.
enum DifferentialType: String, Sendable, CaseIterable {
    case string, int16, int32, int64, double, float, decimal, bool, date, uuid, data, uri

    var attributeType: NSAttributeType {
        switch self {
        case .string: return .stringAttributeType
        case .int16: return .integer16AttributeType
        case .int32: return .integer32AttributeType
        case .int64: return .integer64AttributeType
        case .double: return .doubleAttributeType
        case .float: return .floatAttributeType
        case .decimal: return .decimalAttributeType
        case .bool: return .booleanAttributeType
        case .date: return .dateAttributeType
        case .uuid: return .UUIDAttributeType
        case .data: return .binaryDataAttributeType
        case .uri: return .URIAttributeType
        }
    }

    var isNumeric: Bool { [.int16, .int32, .int64, .double, .float, .decimal].contains(self) }
    /// Whether values of the type have an order predicates and sort descriptors can use.
    var isOrdered: Bool { isNumeric || self == .string || self == .date }
}

struct DifferentialAttribute: Sendable {
    let name: String
    let type: DifferentialType
    /// Required attributes always have a value in the generated data (arithmetic and functions use only these,
    /// because Apple's in-memory evaluation raises on `nil * 2`).
    let isOptional: Bool
}

struct DifferentialRelationship: Sendable {
    let name: String
    let destination: String
    let isToMany: Bool
    let isOrdered: Bool
    let inverse: String
}

struct DifferentialEntity: Sendable {
    let name: String
    let parent: String?
    let isAbstract: Bool
    let attributes: [DifferentialAttribute]
    let relationships: [DifferentialRelationship]
}

/// The model: a `DiffPerson` with an attribute of every type and every relationship shape, its `DiffItem`s
/// (one-to-many), `DiffStep`s (ordered one-to-many), `DiffTag`s (many-to-many), a `manager` (to-one to the same
/// entity, inverse `reports`), and `DiffThing`s, an abstract entity with sub-entities `DiffGadget` and `DiffWidget`.
/// Every object has a unique integer `id` (unique across all entities), the tiebreaker of every sorted fetch.
enum DifferentialSchema {
    static let entities: [DifferentialEntity] = [
        DifferentialEntity(name: "DiffPerson", parent: nil, isAbstract: false, attributes: [
            .init(name: "id", type: .int64, isOptional: false),
            .init(name: "name", type: .string, isOptional: true),
            .init(name: "nickname", type: .string, isOptional: true),
            .init(name: "age", type: .int32, isOptional: true),
            .init(name: "small", type: .int16, isOptional: true),
            .init(name: "big", type: .int64, isOptional: true),
            .init(name: "score", type: .double, isOptional: true),
            .init(name: "rating", type: .float, isOptional: true),
            .init(name: "balance", type: .decimal, isOptional: true),
            .init(name: "active", type: .bool, isOptional: true),
            .init(name: "born", type: .date, isOptional: true),
            .init(name: "uuid", type: .uuid, isOptional: true),
            .init(name: "blob", type: .data, isOptional: true),
            .init(name: "homepage", type: .uri, isOptional: true),
        ], relationships: [
            .init(name: "manager", destination: "DiffPerson", isToMany: false, isOrdered: false, inverse: "reports"),
            .init(name: "reports", destination: "DiffPerson", isToMany: true, isOrdered: false, inverse: "manager"),
            .init(name: "items", destination: "DiffItem", isToMany: true, isOrdered: false, inverse: "owner"),
            .init(name: "steps", destination: "DiffStep", isToMany: true, isOrdered: true, inverse: "person"),
            .init(name: "tags", destination: "DiffTag", isToMany: true, isOrdered: false, inverse: "people"),
            .init(name: "things", destination: "DiffThing", isToMany: true, isOrdered: false, inverse: "owner"),
        ]),
        DifferentialEntity(name: "DiffItem", parent: nil, isAbstract: false, attributes: [
            .init(name: "id", type: .int64, isOptional: false),
            .init(name: "title", type: .string, isOptional: false),
            .init(name: "price", type: .double, isOptional: false),
            .init(name: "quantity", type: .int32, isOptional: false),
            .init(name: "discount", type: .double, isOptional: true),
        ], relationships: [
            .init(name: "owner", destination: "DiffPerson", isToMany: false, isOrdered: false, inverse: "items"),
        ]),
        DifferentialEntity(name: "DiffTag", parent: nil, isAbstract: false, attributes: [
            .init(name: "id", type: .int64, isOptional: false),
            .init(name: "name", type: .string, isOptional: true),
            .init(name: "weight", type: .int16, isOptional: true),
        ], relationships: [
            .init(name: "people", destination: "DiffPerson", isToMany: true, isOrdered: false, inverse: "tags"),
        ]),
        DifferentialEntity(name: "DiffStep", parent: nil, isAbstract: false, attributes: [
            .init(name: "id", type: .int64, isOptional: false),
            .init(name: "label", type: .string, isOptional: true),
            .init(name: "position", type: .int32, isOptional: true),
        ], relationships: [
            .init(name: "person", destination: "DiffPerson", isToMany: false, isOrdered: false, inverse: "steps"),
        ]),
        DifferentialEntity(name: "DiffThing", parent: nil, isAbstract: true, attributes: [
            .init(name: "id", type: .int64, isOptional: false),
            .init(name: "name", type: .string, isOptional: true),
            .init(name: "rank", type: .int16, isOptional: true),
        ], relationships: [
            .init(name: "owner", destination: "DiffPerson", isToMany: false, isOrdered: false, inverse: "things"),
        ]),
        DifferentialEntity(name: "DiffGadget", parent: "DiffThing", isAbstract: false, attributes: [
            .init(name: "cost", type: .double, isOptional: true),
            .init(name: "serial", type: .uuid, isOptional: true),
        ], relationships: []),
        DifferentialEntity(name: "DiffWidget", parent: "DiffThing", isAbstract: false, attributes: [
            .init(name: "load", type: .float, isOptional: true),
            .init(name: "flag", type: .bool, isOptional: true),
        ], relationships: []),
    ]

    static func entity(_ name: String) -> DifferentialEntity {
        guard let entity = entities.first(where: { $0.name == name }) else { preconditionFailure("no entity \(name)") }
        return entity
    }

    /// An entity's attributes including inherited ones.
    static func attributes(of name: String) -> [DifferentialAttribute] {
        let entity = entity(name)
        return (entity.parent.map(attributes(of:)) ?? []) + entity.attributes
    }

    /// An entity's relationships including inherited ones.
    static func relationships(of name: String) -> [DifferentialRelationship] {
        let entity = entity(name)
        return (entity.parent.map(relationships(of:)) ?? []) + entity.relationships
    }

    /// A key path split after its first to-many relationship: `owner.tags.name` from DiffItem is
    /// (`owner.tags`, `name`); `tags` is (`tags`, nil). Nil if the path has no to-many relationship.
    static func splitAtToMany(_ path: String, from entity: String) -> (relationships: String, rest: String?)? {
        var current = entity
        let components = path.split(separator: ".").map(String.init)
        for (index, component) in components.enumerated() {
            guard let relationship = relationships(of: current).first(where: { $0.name == component }) else { return nil }
            if relationship.isToMany {
                let rest = components[(index + 1)...].joined(separator: ".")
                return (components[...index].joined(separator: "."), rest.isEmpty ? nil : rest)
            }
            current = relationship.destination
        }
        return nil
    }

    /// The entity a key path of relationships leads to.
    static func destination(of path: String, from entity: String) -> String? {
        var current = entity
        for component in path.split(separator: ".") {
            guard let relationship = relationships(of: current).first(where: { $0.name == component }) else { return nil }
            current = relationship.destination
        }
        return current
    }

    /// The concrete entities an entity's fetch returns (itself and its sub-entities).
    static func concreteEntities(kindOf name: String) -> [String] {
        entities.filter { isKind($0.name, of: name) && !$0.isAbstract }.map(\.name)
    }

    static func isKind(_ name: String, of ancestor: String) -> Bool {
        var current: String? = name
        while let entityName = current {
            if entityName == ancestor { return true }
            current = entity(entityName).parent
        }
        return false
    }

    /// The model, built with Apple's API (a new instance per call: each stack gets its own).
    static func makeModel() -> NSManagedObjectModel {
        var descriptions: [String: NSEntityDescription] = [:]
        for spec in entities {
            let entity = NSEntityDescription()
            entity.name = spec.name
            entity.managedObjectClassName = "NSManagedObject"
            entity.isAbstract = spec.isAbstract
            descriptions[spec.name] = entity
        }
        var relationships: [String: NSRelationshipDescription] = [:]
        for spec in entities {
            var properties: [NSPropertyDescription] = []
            for attributeSpec in spec.attributes {
                let attribute = NSAttributeDescription()
                attribute.name = attributeSpec.name
                attribute.attributeType = attributeSpec.type.attributeType
                attribute.isOptional = attributeSpec.isOptional
                properties.append(attribute)
            }
            for relationshipSpec in spec.relationships {
                let relationship = NSRelationshipDescription()
                relationship.name = relationshipSpec.name
                relationship.destinationEntity = descriptions[relationshipSpec.destination]
                relationship.minCount = 0
                relationship.maxCount = relationshipSpec.isToMany ? 0 : 1
                relationship.isOrdered = relationshipSpec.isOrdered
                relationship.deleteRule = .nullifyDeleteRule
                relationship.isOptional = true
                relationships["\(spec.name).\(relationshipSpec.name)"] = relationship
                properties.append(relationship)
            }
            descriptions[spec.name]?.properties = properties
        }
        for spec in entities {
            for relationshipSpec in spec.relationships {
                relationships["\(spec.name).\(relationshipSpec.name)"]?.inverseRelationship =
                    relationships["\(relationshipSpec.destination).\(relationshipSpec.inverse)"]
            }
        }
        for spec in entities where spec.parent == nil {
            descriptions[spec.name]?.subentities = entities.filter { $0.parent == spec.name }.compactMap { descriptions[$0.name] }
        }
        let model = NSManagedObjectModel()
        model.entities = entities.compactMap { descriptions[$0.name] }
        return model
    }
}

// MARK: - Values

/// The pools the data and the predicates draw values from: few enough that comparisons hit, varied enough to find
/// the edges (Unicode case and diacritic variants, canonically equivalent spellings, LIKE and regex metacharacters,
/// quotes, empty strings, integers beyond a double's precision, floats that are not doubles, sub-second dates).
enum DifferentialValues {
    static let strings: [String] = [
        "", "Émile", "emile", "EMILE", "Emile", "e\u{301}mile", "Zoë", "zoe", "ZOE", "Ångström", "angstrom",
        "straße", "STRASSE", "naïve", "Naive", "Ωmega", "ωmega", "日本語", "a*b", "a?c", "100%_off", "O'Brien",
        "say \"hi\"", "back\\slash", "x", "X", "abc", "ABC", "abcd", "b", "ß", "İstanbul", "ﬁne", "café", "Café",
        "10", "9", "file10", "file9", "File2", " padded ",
    ]
    /// Operands of string operators: pieces of the strings above, in other cases and with other diacritics.
    static let fragments: [String] = [
        "", "e", "E", "é", "É", "mile", "MILE", "Émile", "emile", "zo", "ë", "o", "ß", "ss", "SS", "Ω", "ω", "本",
        "a", "A", "b", "c", "abc", "*", "?", "%", "_", "'", "\"", "\\", "file", "9", "10", "fi", "ﬁ", "İ", "i", " ",
        "x", "naive", "NAÏVE", "cafe", "CAFÉ",
    ]
    static let likePatterns: [String] = [
        "*", "?", "*mile", "?mile", "e*", "E*", "*e*", "a\\*b", "a*b", "a?c", "*ß*", "file?", "file*", "*10", "??",
        "", "É*", "*ë", "x", "*O'B*", "100%*",
    ]
    static let regexes: [String] = [
        ".*", ".*mile", "[a-z]+", "[A-Z].*", "a.c", "\\w+", "z.e", "É.*", ".*\\d", "file\\d+", "(?i)zoe", "x|X", ".",
    ]
    static let int16s: [Int16] = [-5, -1, 0, 1, 2, 3, 4, 5, Int16.max, Int16.min]
    static let int32s: [Int32] = [-1, 0, 1, 7, 18, 30, 42, 59, 60, Int32.max, Int32.min]
    static let int64s: [Int64] = [-3, 0, 7, 1 << 40, 9_007_199_254_740_993, Int64.max, Int64.min]
    static let doubles: [Double] = [-1.5, 0, 0.1, 0.5, 2.25, 3, 1e10, -0.0, 0.30000000000000004]
    static let floats: [Float] = [0.1, 0.5, 1.5, 2, -3.25, 1.1]
    static let decimals: [Decimal] = [0, 1.5, -2.25, 100.125, 3, Decimal(string: "0.1")!]
    static let dates: [Date] = [0, 86_400.5, -1_000_000, 750_000_000, 750_000_000.25, 750_086_400].map { Date(timeIntervalSinceReferenceDate: $0) }
    static let uuids: [UUID] = [
        "00000000-0000-0000-0000-000000000001", "7B4C5A4E-1D52-4E47-9C6B-2F0D3B7E4A11",
        "F0F0F0F0-0000-4000-8000-0000000000FF", "0A1B2C3D-4E5F-4061-8293-A4B5C6D7E8F9",
    ].map { UUID(uuidString: $0)! }
    static let datas: [Data] = [Data(), Data([0]), Data([0, 1]), Data([1]), Data([255, 0])]
    static let uris: [URL] = ["https://example.com", "https://example.com/a", "file:///tmp/x", "https://EXAMPLE.com"].map { URL(string: $0)! }

    /// A random value of `type` from its pool (as the Swift type the attribute takes).
    static func random(_ type: DifferentialType, using rng: inout DifferentialRNG) -> Any {
        switch type {
        case .string: return rng.pick(strings)
        case .int16: return rng.pick(int16s)
        case .int32: return rng.pick(int32s)
        case .int64: return rng.pick(int64s)
        case .double: return rng.pick(doubles)
        case .float: return rng.pick(floats)
        case .decimal: return rng.pick(decimals)
        case .bool: return rng.chance(0.5)
        case .date: return rng.pick(dates)
        case .uuid: return rng.pick(uuids)
        case .data: return rng.pick(datas)
        case .uri: return rng.pick(uris)
        }
    }
}

// MARK: - Data

/// One generated object: attribute values and the ids of related objects.
struct DifferentialObject {
    let entity: String
    let id: Int64
    var values: [String: Any] = [:]
    var toOne: [String: Int64] = [:]
    /// To-many relationships set from this side (in order, for ordered ones).
    var toMany: [String: [Int64]] = [:]

    var key: String { DifferentialData.key(entity, id) }
}

/// The generated data set: the same objects go into every store.
struct DifferentialData {
    var objects: [DifferentialObject] = []

    static func key(_ entity: String, _ id: Int64) -> String { "\(entity)#\(id)" }

    func objects(of entity: String) -> [DifferentialObject] {
        objects.filter { DifferentialSchema.isKind($0.entity, of: entity) }
    }

    /// The data of a seed: about 30 people, 60 items, 10 tags, 40 steps and 24 things, with nil in a fifth of
    /// every optional attribute and relationship.
    static func generate(seed: UInt64) -> DifferentialData {
        var rng = DifferentialRNG(seed: seed, stream: 0)
        var data = DifferentialData()
        var nextID: Int64 = 1
        func make(_ entity: String) -> DifferentialObject {
            defer { nextID += 1 }
            var object = DifferentialObject(entity: entity, id: nextID)
            for attribute in DifferentialSchema.attributes(of: entity) where attribute.name != "id" {
                if attribute.isOptional && rng.chance(0.2) { continue }
                switch (entity, attribute.name) {
                case ("DiffItem", "title"): object.values["title"] = rng.pick(DifferentialValues.strings.filter { !$0.isEmpty })
                case ("DiffItem", "price"): object.values["price"] = rng.pick([0, 0.5, 1, 2.5, 5, 5.5, 10, 99.99])
                case ("DiffItem", "quantity"): object.values["quantity"] = Int32(rng.int(0...5))
                case ("DiffTag", "weight"): object.values["weight"] = Int16(rng.int(0...4))
                case ("DiffStep", "position"): object.values["position"] = Int32(rng.int(0...9))
                case ("DiffPerson", "age"): object.values["age"] = rng.chance(0.8) ? Int32(rng.int(0...60)) : rng.pick(DifferentialValues.int32s)
                default: object.values[attribute.name] = DifferentialValues.random(attribute.type, using: &rng)
                }
            }
            return object
        }
        let tags = (0..<10).map { _ in make("DiffTag") }
        var people = (0..<30).map { _ in make("DiffPerson") }
        for index in people.indices {
            if index > 0 && rng.chance(0.7) { people[index].toOne["manager"] = people[rng.int(0...(index - 1))].id }
            people[index].toMany["tags"] = rng.sample(tags, count: rng.weighted([(2, 0), (3, 1), (3, 2), (2, 4)])).map(\.id)
        }
        var items = (0..<60).map { _ in make("DiffItem") }
        for index in items.indices where rng.chance(0.85) { items[index].toOne["owner"] = rng.pick(people).id }
        let steps = (0..<40).map { _ in make("DiffStep") }
        for step in steps where rng.chance(0.85) {
            let owner = rng.int(0...(people.count - 1))
            people[owner].toMany["steps", default: []].append(step.id)
        }
        var things = (0..<12).map { _ in make("DiffGadget") } + (0..<12).map { _ in make("DiffWidget") }
        for index in things.indices where rng.chance(0.8) { things[index].toOne["owner"] = rng.pick(people).id }
        data.objects = tags + people + items + steps + things
        return data
    }

    /// Inserts the data into `context` and saves; returns the objects by key.
    func insert(into context: NSManagedObjectContext) throws -> [String: NSManagedObject] {
        var byKey: [String: NSManagedObject] = [:]
        for spec in objects {
            let object = NSEntityDescription.insertNewObject(forEntityName: spec.entity, into: context)
            object.setValue(spec.id, forKey: "id")
            for (key, value) in spec.values { object.setValue(value, forKey: key) }
            byKey[spec.key] = object
        }
        for spec in objects {
            guard let object = byKey[spec.key] else { continue }
            for (name, id) in spec.toOne {
                let destination = DifferentialSchema.relationships(of: spec.entity).first { $0.name == name }?.destination ?? ""
                object.setValue(Self.find(destination, id, in: byKey), forKey: name)
            }
            for (name, ids) in spec.toMany {
                guard let relationship = DifferentialSchema.relationships(of: spec.entity).first(where: { $0.name == name }) else { continue }
                let members = ids.compactMap { Self.find(relationship.destination, $0, in: byKey) }
                if relationship.isOrdered {
                    let ordered = object.mutableOrderedSetValue(forKey: name)
                    for member in members { ordered.add(member) }
                } else {
                    let set = object.mutableSetValue(forKey: name)
                    for member in members { set.add(member) }
                }
            }
        }
        try context.save()
        return byKey
    }

    /// The object with `id` among the entity's kind (sub-entities included).
    static func find(_ entity: String, _ id: Int64, in objects: [String: NSManagedObject]) -> NSManagedObject? {
        for concrete in DifferentialSchema.concreteEntities(kindOf: entity) {
            if let object = objects[key(concrete, id)] { return object }
        }
        return nil
    }
}

// MARK: - Stacks

/// A coordinator with one store, the writer context that inserted the data, and the objects by key.
final class DifferentialStack {
    let coordinator: NSPersistentStoreCoordinator
    /// The context that inserted and saved the data (its objects stay registered).
    let writer: NSManagedObjectContext
    let objects: [String: NSManagedObject]
    /// The saved objects' IDs by key.
    let objectIDs: [String: NSManagedObjectID]
    private let directory: URL?

    init(storeType: String, data: DifferentialData) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: DifferentialSchema.makeModel())
        self.coordinator = coordinator
        if storeType == NSSQLiteStoreType {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("OpenCoreDataDifferential-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            self.directory = directory
            _ = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: directory.appendingPathComponent("Differential.sqlite"), options: nil)
        } else {
            directory = nil
            _ = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: nil, options: nil)
        }
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        self.writer = writer
        let objects = try writer.performAndWait { try data.insert(into: writer) }
        self.objects = objects
        objectIDs = writer.performAndWait { objects.mapValues(\.objectID) }
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// A new context on the coordinator: its fetches read the store (nothing registered, nothing pending).
    func newReader() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
