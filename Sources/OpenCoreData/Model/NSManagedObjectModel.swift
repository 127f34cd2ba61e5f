import Synchronization

/// A managed object model: the schema of an object graph — its entities, their properties and
/// relationships, configurations and fetch request templates.
///
/// Load one from an Xcode model package, or build it in code:
/// ```swift
/// let url = Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld")!
/// let model = NSManagedObjectModel(contentsOf: url)!
/// print(model.entitiesByName.keys.sorted())   // ["Continent", "Country", "GeographicRegion", "Mood"]
/// ```
///
/// A model is editable until a persistent store coordinator uses it; after that it is immutable, and
/// mutating it stops the program (Apple's Core Data raises there).
open class NSManagedObjectModel: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: mutable only until frozen by a coordinator (checked on every setter), read-only
    // after; `frozen` is an atomic flag and derived values are cached behind a lock only once frozen.

    var _entities: [NSEntityDescription] = []
    /// Configuration name → entity names, in the order they were set.
    var _configurations: [(name: String, entityNames: [String])] = []
    var _fetchRequestTemplates: [(name: String, template: FetchRequestTemplate)] = []
    var _localizationDictionary: [String: String]?
    var _versionIdentifiers: Set<AnyHashable> = []
    /// Where the model was loaded from, for messages.
    var sourceURL: URL?
    private let frozen = Atomic<Bool>(false)
    let entitiesByNameCache = FrozenCache<[String: NSEntityDescription]>()
    let versionHashesCache = FrozenCache<[String: Data]>()

    /// Creates an empty model.
    public override init() { super.init() }

    deinit {
        // An entity and its objects' layout refer to each other (an object reaches its entity through its layout):
        // without this, every entity that had objects (or a layout) outlived its model, with its properties
        // (found by AddressSanitizer's leak checker). Objects still alive keep their layout, and through it their
        // entity; entities that moved to another model (which `owningModel` then names) keep theirs.
        for entity in _entities where entity.owningModel == nil { entity.layoutCache.reset() }
    }

    /// Whether a coordinator has started using the model (it is then immutable).
    var isFrozen: Bool { frozen.load(ordering: .acquiring) }

    /// Makes the model immutable; called by a persistent store coordinator that starts using it.
    func freeze() { frozen.store(true, ordering: .releasing) }

    /// A name for the model in messages: its file, or its version identifiers and entities.
    var debugName: String {
        if let sourceURL { return "the model at \(sourceURL.path)" }
        let names = _entities.compactMap(\._name).sorted().prefix(5).joined(separator: ", ")
        return "the model with entities [\(names)\(_entities.count > 5 ? ", …" : "")]"
    }

    private func willMutate(_ what: @autoclosure () -> String) {
        checkModelEditable(self, what())
    }

    /// All entities of the model, sub-entities included. Setting it adds each entity to the model.
    public var entities: [NSEntityDescription] {
        get { _entities }
        set {
            willMutate("set its entities")
            var seen = Set<String>()
            for entity in newValue {
                if let name = entity._name {
                    precondition(seen.insert(name).inserted, "A model cannot have two entities named '\(name)'.")
                }
            }
            for old in _entities where old.owningModel === self { old.owningModel = nil }
            _entities = newValue
            for entity in newValue { entity.owningModel = self }
        }
    }

    /// The entities by name.
    public var entitiesByName: [String: NSEntityDescription] {
        entitiesByNameCache.value(frozen: isFrozen) {
            Dictionary(_entities.compactMap { entity in entity._name.map { ($0, entity) } }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The entity named `name`, if any.
    func entity(named name: String) -> NSEntityDescription? { entitiesByName[name] }

    /// The names of the model's configurations.
    public var configurations: [String] { _configurations.map(\.name) }

    /// The entities of a configuration; all entities for `nil`, and `nil` for an unknown configuration.
    public func entities(forConfigurationName configuration: String?) -> [NSEntityDescription]? {
        guard let configuration else { return _entities }
        if let names = _configurations.first(where: { $0.name == configuration })?.entityNames {
            let byName = entitiesByName
            return names.compactMap { byName[$0] }
        }
        return Self.defaultConfigurationNames.contains(configuration) ? _entities : nil
    }

    /// The names under which Core Data knows the implicit configuration that holds every entity.
    static let defaultConfigurationNames: Set<String> = ["Default", "PF_DEFAULT_CONFIGURATION_NAME"]

    /// Makes `entities` the members of the configuration `configuration`.
    public func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
        willMutate("set the entities of configuration '\(configuration)'")
        let names = entities.compactMap(\._name)
        if let index = _configurations.firstIndex(where: { $0.name == configuration }) {
            _configurations[index].entityNames = names
        } else {
            _configurations.append((configuration, names))
        }
    }

    /// Strings for localizing entity and property names in error messages (`"Entity/Mood"`, `"Property/date"`).
    public var localizationDictionary: [String: String]? {
        get { _localizationDictionary }
        set { willMutate("set its localizationDictionary"); _localizationDictionary = newValue }
    }

    /// The model editor's version identifiers; stores record them as `NSStoreModelVersionIdentifiers`.
    public var versionIdentifiers: Set<AnyHashable> {
        get { _versionIdentifiers }
        set { willMutate("set its versionIdentifiers"); _versionIdentifiers = newValue }
    }

    /// The version hash of every entity, by name — what a store records in its metadata as
    /// `NSStoreModelVersionHashes` and compares to decide whether the model can open it.
    public var entityVersionHashesByName: [String: Data] {
        versionHashesCache.value(frozen: isFrozen) {
            Dictionary(_entities.compactMap { entity in entity._name.map { ($0, entity.versionHash) } }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The model's version checksum, as Xcode's model compiler and Apple's Core Data compute it: the base64 of
    /// SHA-256 over the entity version hashes in entity-name order (a store's `NSStoreModelVersionChecksumKey`).
    public var versionChecksum: String {
        ModelDigests.versionChecksum(entityVersionHashesByName)
    }

    /// Whether the store whose metadata is `metadata` can be opened with this model's configuration:
    /// every entity of the configuration has the store's version hash for it.
    ///
    /// For example:
    /// ```swift
    /// if !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { /* migrate */ }
    /// ```
    public func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        guard let storeHashes = metadata[NSStoreModelVersionHashesKey] as? [String: Any],
            let entities = entities(forConfigurationName: configuration)
        else { return false }
        for entity in entities {
            guard let name = entity._name, let stored = storeHashes[name] else { return false }
            let storedData = (stored as? Data) ?? (stored as? NSData).map { Data(referencing: $0) }
            if storedData != entity.versionHash { return false }
        }
        return true
    }

    /// A deep copy of the model: copies of every entity and property, re-linked among themselves.
    open func copy(with zone: NSZone? = nil) -> Any {
        guard let copy = NSManagedObjectModel(mergingCopiesOf: [self]) else {
            preconditionFailure("\(debugName) has entities with duplicate names and cannot be copied.")
        }
        copy.adoptModelFields(of: self)
        return copy
    }

    /// Takes `other`'s configurations, fetch request templates, localization, version identifiers and source URL.
    func adoptModelFields(of other: NSManagedObjectModel) {
        _configurations = other._configurations
        _fetchRequestTemplates = other._fetchRequestTemplates
        _localizationDictionary = other._localizationDictionary
        _versionIdentifiers = other._versionIdentifiers
        sourceURL = other.sourceURL
    }

    /// Decodes a model archived with `encode(with:)` (a compiled-model archive, the contents of a `.mom` file);
    /// nil when the coder holds none or it is damaged (NSManagedObjectModel+Coding.swift).
    ///
    /// ```swift
    /// let model = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data)
    /// ```
    public required convenience init?(coder: NSCoder) {
        guard let decoded = NSManagedObjectModel.decodedModel(from: coder) else { return nil }
        self.init(mergingCopiesOf: [decoded])
        adoptModelFields(of: decoded)
    }

    /// Creates a model that contains copies of the entities of `models`; `nil` if two models have an entity
    /// with the same name.
    ///
    /// For example:
    /// ```swift
    /// let merged = NSManagedObjectModel(byMerging: [usersModel, postsModel])
    /// ```
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        self.init(mergingCopiesOf: models ?? [])
        for model in models ?? [] {
            for configuration in model._configurations where !_configurations.contains(where: { $0.name == configuration.name }) {
                _configurations.append(configuration)
            }
            _fetchRequestTemplates += model._fetchRequestTemplates
            _versionIdentifiers.formUnion(model._versionIdentifiers)
            if let strings = model._localizationDictionary {
                _localizationDictionary = (_localizationDictionary ?? [:]).merging(strings) { first, _ in first }
            }
        }
    }

    /// Apple's Objective-C-derived spelling of `init(byMerging:)`.
    public convenience init?(byMergingModels models: [NSManagedObjectModel]?) {
        self.init(byMerging: models)
    }

    /// A model holding copies of the entities of `models`, with inheritance and relationships re-linked by name.
    init?(mergingCopiesOf models: [NSManagedObjectModel]) {
        super.init()
        var copies: [String: NSEntityDescription] = [:]
        var ordered: [NSEntityDescription] = []
        for model in models {
            for entity in model._entities {
                let copy = entity.copy() as! NSEntityDescription
                if let name = copy._name {
                    guard copies[name] == nil else { return nil }
                    copies[name] = copy
                }
                ordered.append(copy)
            }
        }
        for model in models {
            for entity in model._entities {
                guard let name = entity._name, let copy = copies[name] else { continue }
                copy.subentities = entity._subentities.compactMap { $0._name.flatMap { copies[$0] } }
            }
        }
        entities = ordered
        linkRelationships()
    }

    /// Points every relationship at its destination entity and inverse, by name.
    func linkRelationships() {
        let byName = entitiesByName
        for entity in _entities {
            for case let relationship as NSRelationshipDescription in entity._ownProperties {
                if relationship._destinationEntity == nil, let name = relationship._destinationEntityName {
                    relationship._destinationEntity = byName[name]
                }
                if relationship._inverseRelationship == nil, let inverseName = relationship._inverseRelationshipName,
                    let destination = relationship._destinationEntity
                {
                    relationship._inverseRelationship = destination.relationshipsByName[inverseName]
                }
            }
        }
    }

    /// Whether `object` is a model of the same schema: same entities (with their properties), configurations and
    /// fetch request templates, as Apple's comparison finds two loads of one model file equal
    /// (see `NSManagedObjectModel+Equality.swift`).
    ///
    /// For example:
    /// ```swift
    /// NSManagedObjectModel(contentsOf: url)! == NSManagedObjectModel(contentsOf: url)!   // true
    /// ```
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectModel else { return false }
        return hasSameSchema(as: other)
    }

    /// A hash equal models share (their entity names).
    open override var hash: Int { schemaHash }

    open override var description: String {
        "(NSManagedObjectModel) isEditable \(!isFrozen), entities {\n"
            + _entities.map { "    \($0._name ?? "nil") = \($0.description);" }.joined(separator: "\n")
            + "\n}, fetch request templates [\(_fetchRequestTemplates.map(\.name).joined(separator: ", "))]"
    }
}

/// A fetch request template as a model stores it, before the fetch layer turns it into an `NSFetchRequest`.
struct FetchRequestTemplate: Sendable {
    /// The entity the request fetches.
    var entityName: String
    /// The predicate in format syntax, if any.
    var predicateFormat: String?
    /// Other settings from the model file (`fetchLimit`, `resultType`, …) as text.
    var settings: [String: String] = [:]
}

/// The store-metadata key of the entity version hashes.
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
/// The store-metadata key of the model's version identifiers.
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"
/// The store-metadata key of the store type.
public let NSStoreTypeKey = "NSStoreType"
/// The store-metadata key of the store UUID.
public let NSStoreUUIDKey = "NSStoreUUID"
