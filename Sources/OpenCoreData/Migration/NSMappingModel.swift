/// How to migrate a store from one model version to another: one `NSEntityMapping` per entity.
///
/// Infer one for a lightweight migration, or load one Xcode compiled (`.cdm`) or an Xcode mapping model describes:
/// ```swift
/// let inferred = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
/// let compiled = NSMappingModel(contentsOf: Bundle.module.url(forResource: "V1toV2", withExtension: "cdm"))
/// let explicit = NSMappingModel(contentsOf: Bundle.module.url(forResource: "V1toV2", withExtension: "xcmappingmodel"))
/// ```
open class NSMappingModel: NSObject, @unchecked Sendable {
    // @unchecked Sendable: configured before a migration starts and only read during it.

    /// The entity mappings, in the order a migration runs them.
    open var entityMappings: [NSEntityMapping]! = []

    /// The entity mappings by name.
    open var entityMappingsByName: [String: NSEntityMapping] {
        Dictionary((entityMappings ?? []).compactMap { mapping in mapping.name.map { ($0, mapping) } }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether Core Data inferred this mapping (a lightweight migration, which the SQLite store performs in
    /// place with SQL).
    var isInferred = false
    /// Whether the mapping was read from a compiled `.cdm` (matched to models by Apple's hash rule).
    var isCompiled = false
    /// The Xcode paths of the models an Xcode mapping model was made for.
    var sourceModelPath: String?
    var destinationModelPath: String?

    public override init() { super.init() }

    /// Loads a mapping model: a compiled one (`.cdm`, the keyed archive Xcode compiles an `.xcmappingmodel` into), or
    /// an Xcode `.xcmappingmodel` package (or its `xcmapping.xml` file). Returns `nil` if it cannot be read;
    /// `init(validatingContentsOf:)` throws the reason.
    public convenience init?(contentsOf url: URL?) {
        guard let url, let loaded = try? Self.load(url) else { return nil }
        self.init(copying: loaded)
    }

    /// Apple's Objective-C-derived spelling of `init(contentsOf:)`.
    public convenience init?(contentsOfURL url: URL?) {
        self.init(contentsOf: url)
    }

    /// Loads a mapping model (a compiled `.cdm` or an Xcode `.xcmappingmodel` package), throwing an `NSError` that
    /// names the problem when it is missing or malformed.
    ///
    /// For example:
    /// ```swift
    /// let mapping = try NSMappingModel(validatingContentsOf: url)
    /// ```
    public convenience init(validatingContentsOf url: URL) throws {
        self.init(copying: try Self.load(url))
    }

    /// A compiled mapping model (a file that is a binary property list), else an Xcode one.
    static func load(_ url: URL) throws -> NSMappingModel {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = try? FileContents.read(url), CompiledMappingModel.isArchive(data)
        else { return try XcodeMappingModelReader.load(url) }
        let mapping = try CompiledMappingModel.mappingModel(fromArchive: data)
        mapping.isCompiled = true
        return mapping
    }

    /// The mapping model among `bundles`' resources (with `nil`, or when none of them has one: the main bundle and
    /// SwiftPM resource folders) made for these source and destination models: a compiled `.cdm` whose entity mappings'
    /// version hashes are all among the models' (Apple's rule), or an Xcode `.xcmappingmodel` whose entity mappings
    /// name exactly the models' entities and hashes.
    ///
    /// For example:
    /// ```swift
    /// let mapping = NSMappingModel(from: [Bundle.module], forSourceModel: v5, destinationModel: v6)
    /// ```
    public convenience init?(from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?) {
        guard let sourceModel, let destinationModel else { return nil }
        let directories = bundles.map { $0.compactMap(\.resourceURL) } ?? ModelPackage.defaultSearchDirectories()
        guard let found = MappingModelLookup.mappingModel(source: sourceModel, destination: destinationModel, directories: directories)
            ?? (bundles == nil ? nil : MappingModelLookup.mappingModel(source: sourceModel, destination: destinationModel, directories: ModelPackage.defaultSearchDirectories()))
        else { return nil }
        self.init(copying: found)
    }

    /// Apple's Objective-C-derived spelling of `init(from:forSourceModel:destinationModel:)`.
    public convenience init?(fromBundles bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?) {
        self.init(from: bundles, forSourceModel: sourceModel, destinationModel: destinationModel)
    }

    /// The mapping Core Data infers between two model versions, as lightweight migration uses it: entities and
    /// properties are matched by name or by the destination's `renamingIdentifier`. Throws
    /// `NSInferredMappingModelError` (134190) naming the change that cannot be inferred.
    ///
    /// For example:
    /// ```swift
    /// let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
    /// print(mapping.entityMappingsByName.keys)   // ["MoodToMood", "CountryToCountry", …]
    /// ```
    open class func inferredMappingModel(forSourceModel sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) throws -> NSMappingModel {
        let mapping = NSMappingModel()
        mapping.entityMappings = try MappingInference(source: sourceModel, destination: destinationModel).entityMappings()
        mapping.isInferred = true
        return mapping
    }

    /// Apple's rule for compiled mapping models: the entity mappings' source version hashes are all among the source
    /// model's, and their destination hashes among the destination model's (each set non-empty).
    func hashesFit(source: NSManagedObjectModel, destination: NSManagedObjectModel) -> Bool {
        let mappings = entityMappings ?? []
        let sourceHashes = Set(mappings.compactMap(\.sourceEntityVersionHash)), destinationHashes = Set(mappings.compactMap(\.destinationEntityVersionHash))
        return !sourceHashes.isEmpty && !destinationHashes.isEmpty
            && sourceHashes.isSubset(of: Set(source.entityVersionHashesByName.values)) && destinationHashes.isSubset(of: Set(destination.entityVersionHashesByName.values))
    }

    /// Whether the entity mappings name exactly these models' entities and version hashes. The hashes come from the
    /// models the Xcode mapping names (found near it when it was read): a mapping whose models were not found matches
    /// nothing, since entity names alone would match it to any two versions that share them.
    func matches(source: NSManagedObjectModel, destination: NSManagedObjectModel) -> Bool {
        let mappings = entityMappings ?? []
        for mapping in mappings {
            if let name = mapping.sourceEntityName {
                guard let hash = mapping.sourceEntityVersionHash, source.entitiesByName[name]?.versionHash == hash else { return false }
            }
            if let name = mapping.destinationEntityName {
                guard let hash = mapping.destinationEntityVersionHash, destination.entitiesByName[name]?.versionHash == hash else { return false }
            }
        }
        let mappedDestinations = Set(mappings.compactMap(\.destinationEntityName))
        return !mappings.isEmpty && destination.entities.allSatisfy { mappedDestinations.contains($0.name ?? "") }
    }

    /// Takes over the contents of a loaded mapping model (lets the public initializers be convenience inits).
    convenience init(copying loaded: NSMappingModel) {
        self.init()
        entityMappings = loaded.entityMappings
        isCompiled = loaded.isCompiled
        sourceModelPath = loaded.sourceModelPath
        destinationModelPath = loaded.destinationModelPath
    }

    /// Fills in what an Xcode mapping leaves to its compiler, now that the models are known: the entity
    /// version hashes, and the expressions of "autogenerate" property mappings — `$source.<name>` for an
    /// attribute the source entity has, and for a relationship
    /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<mapping>", $source.<name>)`
    /// with the mapping that migrates the source relationship's destination entity.
    func synthesizeExpressions(source: NSManagedObjectModel, destination: NSManagedObjectModel) {
        let mappings = entityMappings ?? []
        for mapping in mappings {
            let sourceEntity = mapping.sourceEntityName.flatMap { source.entitiesByName[$0] }
            let destinationEntity = mapping.destinationEntityName.flatMap { destination.entitiesByName[$0] }
            if mapping.sourceEntityVersionHash == nil { mapping.sourceEntityVersionHash = sourceEntity?.versionHash }
            if mapping.destinationEntityVersionHash == nil { mapping.destinationEntityVersionHash = destinationEntity?.versionHash }
            guard let sourceEntity else { continue }
            for property in mapping.attributeMappings ?? [] where property.isAutogenerated && property.valueExpression == nil {
                guard let name = property.name, sourceEntity.attributesByName[name] != nil else { continue }
                property.valueExpression = MappingInference.sourceKeyPath(name)
            }
            for property in mapping.relationshipMappings ?? [] where property.isAutogenerated && property.valueExpression == nil {
                guard let name = property.name, let relationship = sourceEntity.relationshipsByName[name], let target = relationship.destinationEntity,
                    let targetMapping = mappings.first(where: { $0.sourceEntityName == target.name && $0.mappingType != .removeEntityMappingType }) ?? mappings.first(where: { candidate in
                        candidate.sourceEntityName.flatMap { source.entitiesByName[$0] }.map { target.isKindOf(entity: $0) || $0.isKindOf(entity: target) } ?? false
                    })
                else { continue }
                property.valueExpression = MappingInference.destinationInstances(mappingName: targetMapping.name ?? "", keyPath: name)
            }
        }
    }

    /// Whether `object` is a mapping model with equal entity mappings (in any order), as Apple's compare.
    ///
    /// For example:
    /// ```swift
    /// NSMappingModel(contentsOf: url) == NSMappingModel(contentsOf: url)   // true: two loads of one file
    /// ```
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSMappingModel else { return false }
        return hasSameContent(as: other)
    }

    /// A hash equal mapping models share (their entity mappings' names).
    open override var hash: Int { contentHash }

    open override var description: String {
        "<NSMappingModel: \((entityMappings ?? []).map { $0.name ?? "?" }.joined(separator: ", "))>"
    }
}
