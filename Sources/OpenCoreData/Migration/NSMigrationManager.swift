/// Migrates a store from one model version to another with a mapping model, object by object, in Core
/// Data's three stages: create the destination instances (per entity mapping, through its
/// `NSEntityMigrationPolicy`), create their relationships, then validate and save. The source store is only
/// read; the destination is a new store at another URL, removed again if the migration fails.
///
/// For example:
/// ```swift
/// let manager = NSMigrationManager(sourceModel: v5, destinationModel: v6)
/// try manager.migrateStore(from: oldURL, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
///                          toDestinationURL: newURL, destinationType: NSSQLiteStoreType, destinationOptions: nil)
/// try coordinator.replacePersistentStore(at: oldURL, destinationOptions: nil, withPersistentStoreFrom: newURL,
///                                        sourceOptions: nil, ofType: NSSQLiteStoreType)
/// ```
open class NSMigrationManager: NSObject, KeyValueCoding {
    /// The model of the store being migrated.
    public let sourceModel: NSManagedObjectModel
    /// The model the store is migrated to.
    public let destinationModel: NSManagedObjectModel
    /// The mapping of the current (or last) migration.
    open private(set) var mappingModel = NSMappingModel()
    /// Anything the migration's policies share.
    open var userInfo: [AnyHashable: Any]?
    /// Whether a store type's own migration manager may be used (the SQLite store's in-place SQL path);
    /// accepted for compatibility, `migrateStore` always migrates object by object.
    open var usesStoreSpecificMigrationManager = true
    /// Called on the migrating thread each time `migrationProgress` advances (an OpenCoreData addition: Apple
    /// reports progress through key-value observing, which Linux lacks).
    open var progressHandler: ((Float) -> Void)?

    var _sourceContext: NSManagedObjectContext?
    var _destinationContext: NSManagedObjectContext?
    var _currentEntityMapping: NSEntityMapping?
    /// The property mapping whose expression is being evaluated.
    var _currentPropertyMapping: NSPropertyMapping?
    private var _migrationProgress: Float = 0
    private var cancellation: Error?
    /// Source ↔ destination instances by entity mapping name (see NSMigrationManager+Associations.swift).
    var destinationsBySource: [String: [NSManagedObjectID: [NSManagedObject]]] = [:]
    var sourcesByDestination: [String: [ObjectIdentifier: NSManagedObject]] = [:]
    var destinationsByMapping: [String: [NSManagedObject]] = [:]

    /// A manager for migrating stores of `sourceModel` to `destinationModel`.
    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        super.init()
    }

    /// The context of the source store (valid during a migration).
    open var sourceContext: NSManagedObjectContext {
        guard let context = _sourceContext else { preconditionFailure("NSMigrationManager.sourceContext is only available during a migration") }
        return context
    }

    /// The context of the destination store (valid during a migration).
    open var destinationContext: NSManagedObjectContext {
        guard let context = _destinationContext else { preconditionFailure("NSMigrationManager.destinationContext is only available during a migration") }
        return context
    }

    /// The entity mapping being migrated.
    open var currentEntityMapping: NSEntityMapping {
        _currentEntityMapping ?? NSEntityMapping()
    }

    /// How far the migration is, from 0 to 1.
    open var migrationProgress: Float { _migrationProgress }

    /// Migrates the store at `sourceURL` to a new store at `dURL` with `mapping`. Throws
    /// `NSMigrationManagerSourceStoreError` / `NSMigrationManagerDestinationStoreError` when a store cannot be
    /// opened, `NSMigrationCancelledError` or the error given to `cancelMigrationWithError(_:)`, and whatever a
    /// policy or the destination's validation throws; on any failure the destination file is removed.
    open func migrateStore(from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil, with mappings: NSMappingModel?,
                           toDestinationURL dURL: URL, destinationType dStoreType: String, destinationOptions dOptions: [AnyHashable: Any]? = nil) throws {
        let mapping = try mappings ?? NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
        mapping.synthesizeExpressions(source: sourceModel, destination: destinationModel)
        mappingModel = mapping
        reset()
        cancellation = nil
        let sourceCoordinator = NSPersistentStoreCoordinator(managedObjectModel: sourceModel)
        var readOnly = sOptions ?? [:]
        readOnly[NSReadOnlyPersistentStoreOption] = true
        readOnly[NSMigratePersistentStoresAutomaticallyOption] = nil
        do {
            try sourceCoordinator.addPersistentStore(ofType: sStoreType, configurationName: nil, at: sourceURL, options: readOnly)
        } catch {
            throw CoreDataError.make(NSMigrationManagerSourceStoreError, "Can't open the source store at \(sourceURL.path) with the source model: \((error as NSError).localizedDescription)",
                                     userInfo: [NSUnderlyingErrorKey: error, NSFilePathErrorKey: sourceURL.path])
        }
        if FileManager.default.fileExists(atPath: dURL.path), (try? FileManager.default.attributesOfItem(atPath: dURL.path)[.size] as? Int) ?? 0 > 0 {
            throw CoreDataError.make(NSMigrationManagerDestinationStoreError, "The destination \(dURL.path) already exists", userInfo: [NSFilePathErrorKey: dURL.path])
        }
        let destinationCoordinator = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
        let destinationStore: NSPersistentStore
        do {
            destinationStore = try destinationCoordinator.addPersistentStore(ofType: dStoreType, configurationName: nil, at: dURL, options: dOptions)
        } catch {
            throw CoreDataError.make(NSMigrationManagerDestinationStoreError, "Can't create the destination store at \(dURL.path): \((error as NSError).localizedDescription)",
                                     userInfo: [NSUnderlyingErrorKey: error, NSFilePathErrorKey: dURL.path])
        }
        // Both contexts work on plain `NSManagedObject`s: the app's subclasses (their `awakeFromInsert`, accessors
        // and validation overrides) take no part in a migration, as in Apple's.
        let source = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        source.persistentStoreCoordinator = sourceCoordinator
        source.faultClasses.makesPlainObjects = true
        source.undoManager = nil
        let destination = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        destination.persistentStoreCoordinator = destinationCoordinator
        destination.faultClasses.makesPlainObjects = true
        destination.undoManager = nil
        _sourceContext = source
        _destinationContext = destination
        defer {
            _sourceContext = nil
            _destinationContext = nil
            _currentEntityMapping = nil
            _currentPropertyMapping = nil
        }
        do {
            try runStages(mapping)
            // The destination keeps the source's UUID and user metadata, as Apple's migration does.
            if let sourceMetadata = sourceCoordinator.persistentStores.first?.metadata {
                var metadata = destinationStore.metadata ?? [:]
                for (key, value) in sourceMetadata where !Self.modelMetadataKeys.contains(key) { metadata[key] = value }
                destinationCoordinator.setMetadata(metadata, for: destinationStore)
            }
            do {
                try destination.save()
            } catch {
                throw CoreDataError.make(NSMigrationError, "Failed to save new store: \((error as NSError).localizedDescription)",
                                         userInfo: [NSUnderlyingErrorKey: error, "reason": "Failed to save new store."])
            }
            try destinationCoordinator.remove(destinationStore)
            try sourceCoordinator.persistentStores.forEach(sourceCoordinator.remove)
            setProgress(1)
        } catch {
            try? destinationCoordinator.persistentStores.forEach(destinationCoordinator.remove)
            try? sourceCoordinator.persistentStores.forEach(sourceCoordinator.remove)
            Self.removeStoreFiles(at: dURL)
            throw error
        }
    }

    /// Metadata keys that describe the model (the destination's own values are kept).
    static let modelMetadataKeys: Set<String> = [NSStoreModelVersionHashesKey, "NSStoreModelVersionHashesVersion", NSStoreModelVersionIdentifiersKey,
                                                 "NSStoreModelVersionHashesDigest", NSPersistentStoreModelVersionChecksumKey, NSStoreTypeKey, NSPersistenceFrameworkVersionKey]

    /// Removes a store file, its SQLite companions and its external-data folder.
    static func removeStoreFiles(at url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        try? FileManager.default.removeItem(at: ExternalBinaryStorage(storePath: url.path).directory.deletingLastPathComponent())
    }

    /// The three stages, as Apple's migration manager runs them: per mapping, `begin`, the source instances (its
    /// `sourceExpression`) and `createDestinationInstances`, then `endInstanceCreation`; per mapping,
    /// `createRelationships` for its destination instances, then `endRelationshipCreation`; then every object of the
    /// destination context is validated (`validateForUpdate`), and per mapping `performCustomValidation` then `end`.
    /// Cancellation is checked after each step.
    private func runStages(_ mapping: NSMappingModel) throws {
        // Add and remove mappings, and mappings without a source or destination entity, migrate no instances.
        let entityMappings = (mapping.entityMappings ?? []).filter {
            $0.mappingType != .addEntityMappingType && $0.mappingType != .removeEntityMappingType && $0.sourceEntityName != nil && $0.destinationEntityName != nil
        }
        var policies: [ObjectIdentifier: NSEntityMigrationPolicy] = [:]
        for entityMapping in entityMappings { policies[ObjectIdentifier(entityMapping)] = try policy(for: entityMapping) }
        func policyOf(_ entityMapping: NSEntityMapping) -> NSEntityMigrationPolicy { policies[ObjectIdentifier(entityMapping)]! }
        let steps = Float(max(1, 3 * entityMappings.count))
        func report(stage: Int, mapping index: Int, fraction: Float) {
            setProgress(0.95 * (Float(stage * entityMappings.count + index) + fraction) / steps)
        }
        // Stage 1: destination instances.
        for (index, entityMapping) in entityMappings.enumerated() {
            _currentEntityMapping = entityMapping
            try policyOf(entityMapping).begin(entityMapping, with: self)
            try checkCancellation()
            let sources = try sourceInstances(for: entityMapping)
            for (number, sourceInstance) in sources.enumerated() {
                try policyOf(entityMapping).createDestinationInstances(forSource: sourceInstance, in: entityMapping, manager: self)
                try checkCancellation()
                report(stage: 0, mapping: index, fraction: Float(number + 1) / Float(sources.count))
            }
            try policyOf(entityMapping).endInstanceCreation(forMapping: entityMapping, manager: self)
            try checkCancellation()
        }
        // Stage 2: relationships.
        for (index, entityMapping) in entityMappings.enumerated() {
            _currentEntityMapping = entityMapping
            let destinations = destinationsByMapping[entityMapping.name ?? ""] ?? []
            for (number, destinationInstance) in destinations.enumerated() {
                try policyOf(entityMapping).createRelationships(forDestination: destinationInstance, in: entityMapping, manager: self)
                try checkCancellation()
                report(stage: 1, mapping: index, fraction: Float(number + 1) / Float(destinations.count))
            }
            try policyOf(entityMapping).endRelationshipCreation(forMapping: entityMapping, manager: self)
            try checkCancellation()
        }
        // Stage 3: validation of every destination object, then each mapping's own validation and end.
        _currentEntityMapping = nil
        try validateDestinationObjects()
        for (index, entityMapping) in entityMappings.enumerated() {
            _currentEntityMapping = entityMapping
            try policyOf(entityMapping).performCustomValidation(forMapping: entityMapping, manager: self)
            try checkCancellation()
            try policyOf(entityMapping).end(entityMapping, manager: self)
            try checkCancellation()
            report(stage: 2, mapping: index, fraction: 1)
        }
    }

    /// Validates every object of the destination context with `validateForUpdate()`, as Apple's migration does
    /// once the relationships are made: one failure is thrown as it is, several as `NSValidationMultipleErrorsError`
    /// (1560) listing each under `NSDetailedErrorsKey`. The invalid object under `NSValidationObjectErrorKey` is
    /// replaced by its description (its context is gone when the error is seen).
    private func validateDestinationObjects() throws {
        var errors: [NSError] = []
        let objects = destinationContext.registeredObjects.filter { !$0.isDeleted }
        for object in objects.sorted(by: { $0.objectID.uriRepresentation().absoluteString < $1.objectID.uriRepresentation().absoluteString }) {
            do {
                try object.validateForUpdate()
            } catch let error as NSError {
                let found = error.code == NSValidationMultipleErrorsError ? (error.userInfo[NSDetailedErrorsKey] as? [NSError] ?? [error]) : [error]
                for detail in found {
                    guard let invalid = detail.userInfo[NSValidationObjectErrorKey] else { errors.append(detail); continue }
                    var userInfo = detail.userInfo
                    userInfo[NSValidationObjectErrorKey] = String(describing: invalid)
                    errors.append(NSError(domain: detail.domain, code: detail.code, userInfo: userInfo))
                }
            }
        }
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 {
            throw CoreDataError.make(NSValidationMultipleErrorsError, "Multiple validation errors occurred.", userInfo: [NSDetailedErrorsKey: errors])
        }
    }

    private func policy(for entityMapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        guard let className = entityMapping.entityMigrationPolicyClassName, !className.isEmpty, className != "NSEntityMigrationPolicy" else {
            return NSEntityMigrationPolicy()
        }
        guard let policyClass = NSEntityMigrationPolicy.policyClass(named: className) else {
            throw CoreDataError.make(NSEntityMigrationPolicyError, "The migration policy class \(className) of the entity mapping \(entityMapping.name ?? "?") is not registered (NSEntityMigrationPolicy.register(_:forClassName:))",
                                     userInfo: ["className": className])
        }
        return policyClass.init()
    }

    /// The source instances an entity mapping migrates: its `sourceExpression`'s value, or every instance of
    /// exactly its source entity.
    private func sourceInstances(for entityMapping: NSEntityMapping) throws -> [NSManagedObject] {
        guard let sourceName = entityMapping.sourceEntityName, let entity = sourceModel.entitiesByName[sourceName] else {
            throw CoreDataError.make(NSMigrationError, "The entity mapping \(entityMapping.name ?? "?") names the source entity \(entityMapping.sourceEntityName ?? "nil"), which the source model lacks")
        }
        if let fetch = entityMapping.sourceExpression as? NSFetchRequestExpression {
            // Evaluated here so the request and context expressions see the migration's variables.
            let request = try evaluate(fetch.requestExpression, source: nil, destination: nil, entityMapping: entityMapping, propertyMapping: nil, policy: nil)
            let context = try evaluate(fetch.contextExpression, source: nil, destination: nil, entityMapping: entityMapping, propertyMapping: nil, policy: nil)
            guard let request = request as? AnyFetchRequest, let context = context as? NSManagedObjectContext else {
                throw CoreDataError.make(NSMigrationError, "The source expression of \(entityMapping.name ?? "?") does not give a fetch request and a context")
            }
            return try request.results(in: context).compactMap { $0 as? NSManagedObject }
        }
        if let expression = entityMapping.sourceExpression {
            let value = try evaluate(expression, source: nil, destination: nil, entityMapping: entityMapping, propertyMapping: nil, policy: nil)
            return NSEntityMigrationPolicy.objects(in: value)
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: sourceName)
        request.includesSubentities = false
        guard entity.isAbstract == false else { return [] }
        return try sourceContext.fetch(request)
    }

    /// Evaluates a mapping expression with the migration's variables bound.
    func evaluate(_ expression: NSExpression, source: NSManagedObject?, destination: NSManagedObject?, entityMapping: NSEntityMapping,
                  propertyMapping: NSPropertyMapping?, policy: NSEntityMigrationPolicy?) throws -> Any? {
        let variables = NSMutableDictionary()
        variables[NSMigrationManagerKey] = self
        variables[NSMigrationEntityMappingKey] = entityMapping
        if let source { variables[NSMigrationSourceObjectKey] = source }
        if let destination { variables[NSMigrationDestinationObjectKey] = destination }
        if let propertyMapping { variables[NSMigrationPropertyMappingKey] = propertyMapping }
        if let policy { variables[NSMigrationEntityPolicyKey] = policy }
        let enclosing = _currentPropertyMapping
        _currentPropertyMapping = propertyMapping
        defer { _currentPropertyMapping = enclosing }
        do {
            return try expression.evaluatedValue(with: source, context: variables)
        } catch let error as NSError where error.domain == NSCocoaErrorDomain && (1550...1690 ~= error.code || 132_000...134_999 ~= error.code) {
            throw error  // A Core Data error from a policy or a fetch stays as it is.
        } catch {
            throw CoreDataError.make(NSMigrationError, "The mapping expression \(expression) of \(entityMapping.name ?? "?").\(propertyMapping?.name ?? "") failed: \(error)",
                                     userInfo: [NSUnderlyingErrorKey: error])
        }
    }

    private func checkCancellation() throws {
        if let cancellation { throw cancellation }
    }

    private func setProgress(_ value: Float) {
        guard value != _migrationProgress else { return }
        _migrationProgress = value
        progressHandler?(value)
    }

    // MARK: Associations

    /// Records that `destinationInstance` was made from `sourceInstance` by `entityMapping`.
    open func associate(sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject, for entityMapping: NSEntityMapping) {
        let name = entityMapping.name ?? ""
        destinationsBySource[name, default: [:]][sourceInstance.objectID, default: []].append(destinationInstance)
        sourcesByDestination[name, default: [:]][ObjectIdentifier(destinationInstance)] = sourceInstance
        destinationsByMapping[name, default: []].append(destinationInstance)
    }

    /// The destination instances the mapping named `mappingName` made from `sourceInstances` (all of them when
    /// `nil`). Mapping expressions call it as
    /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "CountryToCountry", $source.country)`.
    open func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?) -> [NSManagedObject] {
        guard let sourceInstances else { return destinationsByMapping[mappingName] ?? [] }
        let table = destinationsBySource[mappingName] ?? [:]
        return sourceInstances.flatMap { table[$0.objectID] ?? [] }
    }

    /// The source instances the mapping named `mappingName` made `destinationInstances` from.
    open func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?) -> [NSManagedObject] {
        let table = sourcesByDestination[mappingName] ?? [:]
        guard let destinationInstances else { return Array(table.values) }
        return destinationInstances.compactMap { table[ObjectIdentifier($0)] }
    }

    /// The source entity of an entity mapping.
    open func sourceEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination entity of an entity mapping.
    open func destinationEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    /// Stops the running migration: `migrateStore` throws `error` once the current step returns.
    open func cancelMigrationWithError(_ error: any Error) {
        cancellation = error
    }

    /// Forgets the associations of the last migration.
    open func reset() {
        destinationsBySource = [:]
        sourcesByDestination = [:]
        destinationsByMapping = [:]
        _migrationProgress = 0
    }
}
