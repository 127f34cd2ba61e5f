/// Runs batch requests (`NSBatchInsertRequest`, `NSBatchUpdateRequest`, `NSBatchDeleteRequest`) for a context:
/// checks them against the coordinator's model (unknown keys and values of the wrong type throw `NSError`s in
/// Cocoa's domain), hands them to the stores that hold the entity (``BatchExecutingStore``) under the
/// coordinator's lock, and removes every row a store reports as changed from the coordinator's row cache.
///
/// Batch requests do not touch contexts: their objects keep their values until you merge the result's object IDs
/// with `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`.
///
/// Apple documents batch requests for SQLite stores only; OpenCoreData's in-memory store runs them too (an
/// extension, with the same semantics).
enum BatchRequestExecution {
    /// Whether `request` is a batch request.
    static func handles(_ request: NSPersistentStoreRequest) -> Bool {
        request is NSBatchInsertRequest || request is NSBatchUpdateRequest || request is NSBatchDeleteRequest
    }

    /// Executes a batch request for `context` and returns its result (`NSBatchInsertResult`, …).
    static func execute(_ request: NSPersistentStoreRequest, in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The context has no persistent store coordinator, so it cannot execute \(type(of: request)).")
        }
        switch request {
        case let insert as NSBatchInsertRequest: return try executeInsert(insert, coordinator: coordinator, context: context)
        case let update as NSBatchUpdateRequest: return try executeUpdate(update, coordinator: coordinator, context: context)
        case let delete as NSBatchDeleteRequest: return try executeDelete(delete, coordinator: coordinator, context: context)
        default:
            throw CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError, "Unsupported request type \(type(of: request))")
        }
    }

    // MARK: Insert

    private static func executeInsert(_ request: NSBatchInsertRequest, coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext) throws -> NSBatchInsertResult {
        let name = "NSBatchInsertRequest"
        let entity = try resolve(request.entity, named: request.entityName, in: coordinator.managedObjectModel, request: name)
        guard !entity.isAbstract else {
            throw CoreDataError.make(NSCoreDataError, "\(name): cannot insert objects of the abstract entity '\(entity.name ?? "?")'")
        }
        let rows = try insertRows(request, entity: entity, name: name)
        guard let store = try stores(for: entity, coordinator: coordinator, affected: request.affectedStores, request: name).first else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "\(name): no persistent store holds entity '\(entity.name ?? "?")'")
        }
        let outcome = try coordinator.withLock {
            let outcome = try coordinator.executeBatchInsert(StoreBatchInsert(entity: entity, rows: rows, conflictResolution: conflictResolution(context.mergePolicy)), on: store, for: context.storeWriteContext)
            coordinator.rowCache.remove(outcome.objectIDs)
            coordinator.rowCache.remove(outcome.changedObjectIDs)
            return outcome
        }
        switch request.resultType {
        case .statusOnly: return NSBatchInsertResult(result: NSNumber(value: true), resultType: .statusOnly)
        case .objectIDs: return NSBatchInsertResult(result: outcome.objectIDs, resultType: .objectIDs)
        case .count: return NSBatchInsertResult(result: NSNumber(value: outcome.objectIDs.count), resultType: .count)
        }
    }

    /// The rows of a batch insert, from its dictionaries or handlers: attribute values in stored form by slot,
    /// starting from the attributes' default values.
    private static func insertRows(_ request: NSBatchInsertRequest, entity: NSEntityDescription, name: String) throws -> [[StoredValue]] {
        let layout = entity.layout
        var defaults = layout.defaultAttributes
        for (slot, value) in layout.transformableDefaults {
            defaults[slot] = TransformableValues.storedValue(from: value, attribute: layout.attributes[slot])
        }
        var rows: [[StoredValue]] = []
        // Rows usually set the same keys in the same order: the last row's keys and slots are tried first, so a
        // key is compared, not hashed into the entity's slot table.
        var knownKeys: [(key: String, slot: Int, attribute: NSAttributeDescription)] = []
        // One entry of a row: its key as a string (`keyName`, nil when it is not one), the key as given, its value.
        func set(_ row: inout [StoredValue], position: Int, keyName: String?, key: Any, value: Any) throws {
            guard let key = keyName ?? ValueConversion.string(key) else {
                throw CoreDataError.make(NSCoreDataError, "\(name): dictionary keys must be attribute names (strings); got \(ValueConversion.typeName(key)) for entity '\(entity.name ?? "?")'")
            }
            let slot: Int, attribute: NSAttributeDescription
            if position < knownKeys.count, knownKeys[position].key == key {
                (slot, attribute) = (knownKeys[position].slot, knownKeys[position].attribute)
            } else {
                (slot, attribute) = try insertableAttribute(key, of: entity, name: name)
                if position < knownKeys.count { knownKeys[position] = (key, slot, attribute) } else { knownKeys.append((key, slot, attribute)) }
            }
            row[slot] = try BatchValues.storedValue(value, for: attribute, request: name)
        }
        if let objects = request.objectsToInsert {
            rows.reserveCapacity(objects.count)
            for dictionary in objects {
                var row = defaults
                for (position, (key, value)) in dictionary.enumerated() { try set(&row, position: position, keyName: key, key: key, value: value) }
                rows.append(row)
            }
        } else if let handler = request.dictionaryHandler {
            var dictionary = BatchInsertDictionary()
            while true {
                if handler(dictionary) { break }
                var row = defaults, position = 0
                try dictionary.forEachEntry { keyName, key, value in
                    try set(&row, position: position, keyName: keyName, key: key, value: value)
                    position += 1
                }
                rows.append(row)
                // The next row reuses the dictionary unless the handler kept it (then it keeps what it holds).
                if isKnownUniquelyReferenced(&dictionary) { dictionary.prepareForNextRow() } else { dictionary = BatchInsertDictionary() }
            }
        } else if let handler = request.managedObjectHandler {
            let objectClass = ManagedObjectClassRegistry.managedObjectClass(for: entity)
            while true {
                let object = objectClass.init(entity: entity, insertInto: nil)
                if handler(object) { break }
                for (slot, relationship) in layout.toOneRelationships.enumerated() where object.toOneID(at: slot) != nil {
                    throw relationshipsUnsupported(relationship, entity: entity, name: name)
                }
                for (slot, relationship) in layout.toManyRelationships.enumerated() {
                    if case .members(let members) = object.toManyValues[slot], members.count > 0 {
                        throw relationshipsUnsupported(relationship, entity: entity, name: name)
                    }
                }
                rows.append(object.snapshotForSave().attributes)
            }
        }
        return rows
    }

    /// The slot of an attribute a batch insert may set, or the error for a key it may not.
    private static func insertableAttribute(_ key: String, of entity: NSEntityDescription, name: String) throws -> (Int, NSAttributeDescription) {
        switch entity.layout.slots[key] {
        case .attribute(let slot, let attribute)?:
            if attribute is NSDerivedAttributeDescription {
                throw CoreDataError.make(NSCoreDataError, "\(name): attribute '\(key)' of entity '\(entity.name ?? "?")' is derived; the store computes it",
                                         userInfo: [NSValidationKeyErrorKey: key])
            }
            return (slot, attribute)
        case .toOne(_, let relationship)?, .toMany(_, let relationship)?:
            throw relationshipsUnsupported(relationship, entity: entity, name: name)
        case .fetched?, nil:
            throw CoreDataError.make(NSCoreDataError, "\(name): entity '\(entity.name ?? "?")' has no attribute named '\(key)'",
                                     userInfo: [NSValidationKeyErrorKey: key])
        }
    }

    private static func relationshipsUnsupported(_ relationship: NSRelationshipDescription, entity: NSEntityDescription, name: String) -> NSError {
        CoreDataError.make(NSCoreDataError, "\(name): '\(relationship.name)' of entity '\(entity.name ?? "?")' is a relationship; batch requests set attributes only (set relationships through a context)",
                           userInfo: [NSValidationKeyErrorKey: relationship.name])
    }

    /// How a batch insert resolves uniqueness conflicts under a context's merge policy.
    ///
    /// Evidence: Apple documents no batch-specific rule; its "Loading and Displaying a Large Data Feed" sample
    /// (WWDC 2020/2021) imports with `NSBatchInsertRequest` into an entity constrained on `code` from a context whose
    /// `mergePolicy` is `NSMergeByPropertyObjectTrumpMergePolicy`, to update the quakes already stored rather than
    /// duplicate them; augmentedcode.io, "Importing items from network to a Core Data store" (2021), describes the
    /// result — with that policy "existing items are updated and missing items are inserted" — and Stack Overflow
    /// 66954391 shows the update writes every attribute of the new object (defaults included). With the default
    /// `NSErrorMergePolicy` the insert fails on the constraint, as a save does.
    static func conflictResolution(_ mergePolicy: Any) -> BatchConflictResolution {
        switch (mergePolicy as? NSMergePolicy)?.mergeType ?? .errorMergePolicyType {
        case .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType: return .incomingWins
        case .mergeByPropertyStoreTrumpMergePolicyType, .rollbackMergePolicyType: return .storeWins
        default: return .fail
        }
    }

    // MARK: Update

    private static func executeUpdate(_ request: NSBatchUpdateRequest, coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext) throws -> NSBatchUpdateResult {
        let name = "NSBatchUpdateRequest"
        let entity = try resolve(request.entity, named: request.entityName, in: coordinator.managedObjectModel, request: name)
        guard let properties = request.propertiesToUpdate, !properties.isEmpty else {
            throw CoreDataError.make(NSCoreDataError, "\(name): propertiesToUpdate is empty; name at least one attribute of entity '\(entity.name ?? "?")' to update")
        }
        var assignments: [StoreBatchAssignment] = []
        for (key, value) in properties {
            let attribute = try updatableAttribute(key.base, of: entity, name: name)
            if let expression = value as? NSExpression {
                if case .constant(let constant) = expression.node {
                    assignments.append(StoreBatchAssignment(attribute: attribute, value: .constant(try BatchValues.storedValue(constant, for: attribute, request: name))))
                } else {
                    try validateKeyPaths(of: expression, entity: entity)
                    assignments.append(StoreBatchAssignment(attribute: attribute, value: .expression(expression)))
                }
            } else {
                assignments.append(StoreBatchAssignment(attribute: attribute, value: .constant(try BatchValues.storedValue(value, for: attribute, request: name))))
            }
        }
        assignments.sort { $0.attribute.name < $1.attribute.name }
        let predicate = try storePredicate(request.predicate, entity: entity)
        var storeRequest = StoreBatchUpdate(entity: entity, includesSubentities: request.includesSubentities, predicate: predicate, assignments: assignments)
        storeRequest.needsObjectIDs = request.resultType == .updatedObjectIDsResultType
        var updated: [NSManagedObjectID] = []
        var count = 0
        for store in try stores(for: entity, coordinator: coordinator, affected: request.affectedStores, request: name) {
            // The coordinator keeps the rows it had cached, as Apple's (which is not told of a batch request): a
            // fault or refresh may serve them until the object's staleness interval says otherwise, or until the
            // request's IDs are merged (`mergeChanges(fromRemoteContextSave:into:)`). Fetches see the new rows,
            // whose Z_OPT moved on.
            let outcome = try coordinator.executeBatchUpdate(storeRequest, on: store, for: context.storeWriteContext)
            updated += outcome.objectIDs
            count += outcome.affectedCount
        }
        switch request.resultType {
        case .statusOnlyResultType: return NSBatchUpdateResult(result: NSNumber(value: true), resultType: .statusOnlyResultType)
        case .updatedObjectIDsResultType: return NSBatchUpdateResult(result: updated, resultType: .updatedObjectIDsResultType)
        case .updatedObjectsCountResultType: return NSBatchUpdateResult(result: NSNumber(value: count), resultType: .updatedObjectsCountResultType)
        }
    }

    /// The attribute a key of `propertiesToUpdate` names, or the error for a key a batch update cannot set.
    private static func updatableAttribute(_ key: Any, of entity: NSEntityDescription, name: String) throws -> NSAttributeDescription {
        guard let keyName = (key as? String) ?? (key as? NSString).map({ $0 as String }) ?? (key as? NSPropertyDescription)?.name else {
            throw CoreDataError.make(NSCoreDataError, "\(name): keys of propertiesToUpdate must be attribute names or NSAttributeDescriptions; got \(ValueConversion.typeName(key))")
        }
        switch entity.propertiesByName[keyName] {
        case let attribute as NSAttributeDescription:
            if attribute is NSDerivedAttributeDescription {
                throw CoreDataError.make(NSCoreDataError, "\(name): attribute '\(keyName)' of entity '\(entity.name ?? "?")' is derived; the store computes it",
                                         userInfo: [NSValidationKeyErrorKey: keyName])
            }
            if attribute.isTransient {
                throw CoreDataError.make(NSCoreDataError, "\(name): attribute '\(keyName)' of entity '\(entity.name ?? "?")' is transient; the store does not keep it",
                                         userInfo: [NSValidationKeyErrorKey: keyName])
            }
            return attribute
        case let relationship as NSRelationshipDescription:
            throw relationshipsUnsupported(relationship, entity: entity, name: name)
        default:
            throw CoreDataError.make(NSCoreDataError, "\(name): entity '\(entity.name ?? "?")' has no attribute named '\(keyName)'",
                                     userInfo: [NSValidationKeyErrorKey: keyName])
        }
    }

    /// Checks the key paths an update expression reads from the row.
    private static func validateKeyPaths(of expression: NSExpression, entity: NSEntityDescription) throws {
        switch expression.node {
        case .keyPath(let operand, let path):
            if case .evaluatedObject = operand.node { try FetchKeyPathValidation.validateKeyPath(path, entity: entity, context: "propertiesToUpdate") }
            try validateKeyPaths(of: operand, entity: entity)
        case .function(let target, _, let arguments):
            if let target { try validateKeyPaths(of: target, entity: entity) }
            for argument in arguments { try validateKeyPaths(of: argument, entity: entity) }
        case .aggregate(let elements):
            for element in elements { try validateKeyPaths(of: element, entity: entity) }
        case .conditional(_, let whenTrue, let whenFalse):
            try validateKeyPaths(of: whenTrue, entity: entity)
            try validateKeyPaths(of: whenFalse, entity: entity)
        default:
            break
        }
    }

    // MARK: Delete

    private static func executeDelete(_ request: NSBatchDeleteRequest, coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext) throws -> NSBatchDeleteResult {
        let name = "NSBatchDeleteRequest"
        let model = coordinator.managedObjectModel
        var deleted: [NSManagedObjectID] = []
        var count = 0
        func record(_ outcome: StoreBatchOutcome) {
            deleted += outcome.objectIDs
            count += outcome.affectedCount
        }
        if let objectIDs = request.objectIDs {
            guard let first = objectIDs.first else { return deleteResult(request.resultType, deleted, count: 0) }
            let entity = try resolve(first.entity, named: first.entity.name ?? "", in: model, request: name)
            if let other = objectIDs.first(where: { $0.entity.name != entity.name }) {
                throw CoreDataError.make(NSCoreDataError, "\(name): the object IDs mix entities ('\(entity.name ?? "?")' and '\(other.entity.name ?? "?")'); a batch delete takes objects of one entity",
                                         userInfo: [NSAffectedObjectsErrorKey: [first, other]])
            }
            try BatchDeleteRules.checkSupported(entity)
            var byStore: [ObjectIdentifier: (BatchExecutingStore, [NSManagedObjectID])] = [:]
            var order: [ObjectIdentifier] = []
            for objectID in objectIDs where !objectID.isTemporaryID {
                guard let store = coordinator.store(for: objectID) else { continue }
                guard let batchStore = store as? BatchExecutingStore else { throw unsupported(store, request: name) }
                if request.affectedStores.map({ $0.contains { $0 === store } }) == false { continue }
                let key = ObjectIdentifier(store)
                if byStore[key] == nil { order.append(key) }
                byStore[key, default: (batchStore, [])].1.append(objectID)
            }
            for key in order {
                guard let (store, ids) = byStore[key] else { continue }
                record(try runDelete(StoreBatchDelete(entity: entity, includesSubentities: true, predicate: nil, objectIDs: ids), on: store, coordinator: coordinator, context: context))
            }
        } else {
            let fetch = request.fetchRequest
            let entity = try resolve(fetch.entity, named: fetch.entityName ?? "", in: model, request: name)
            let predicate = try storePredicate(fetch.predicate, entity: entity)
            let sortDescriptors = fetch.sortDescriptors ?? []
            try FetchKeyPathValidation.validate(predicate: nil, sortDescriptors: sortDescriptors, entity: entity)
            try BatchDeleteRules.checkSupported(entity)
            var storeRequest = StoreBatchDelete(entity: entity, includesSubentities: fetch.includesSubentities, predicate: predicate, objectIDs: nil,
                                                sortDescriptors: sortDescriptors, fetchLimit: max(0, fetch.fetchLimit), fetchOffset: max(0, fetch.fetchOffset))
            storeRequest.needsObjectIDs = request.resultType == .resultTypeObjectIDs
            for store in try stores(for: entity, coordinator: coordinator, affected: request.affectedStores ?? fetch.affectedStores, request: name) {
                record(try runDelete(storeRequest, on: store, coordinator: coordinator, context: context))
            }
        }
        return deleteResult(request.resultType, deleted, count: count)
    }

    private static func runDelete(_ request: StoreBatchDelete, on store: BatchExecutingStore, coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext) throws -> StoreBatchOutcome {
        try coordinator.withLock {
            let outcome = try coordinator.executeBatchDelete(request, on: store, for: context.storeWriteContext)
            forgetChangedRows(outcome, in: coordinator)
            return outcome
        }
    }

    private static func deleteResult(_ type: NSBatchDeleteRequestResultType, _ deleted: [NSManagedObjectID], count: Int) -> NSBatchDeleteResult {
        switch type {
        case .resultTypeStatusOnly: return NSBatchDeleteResult(result: NSNumber(value: true), resultType: .resultTypeStatusOnly)
        case .resultTypeObjectIDs: return NSBatchDeleteResult(result: deleted, resultType: .resultTypeObjectIDs)
        case .resultTypeCount: return NSBatchDeleteResult(result: NSNumber(value: count), resultType: .resultTypeCount)
        }
    }

    /// Removes the rows a batch request changed from the coordinator's row cache.
    private static func forgetChangedRows(_ outcome: StoreBatchOutcome, in coordinator: NSPersistentStoreCoordinator) {
        coordinator.rowCache.remove(outcome.changedObjectIDs)
        coordinator.rowCache.removeRows(ofHierarchiesOf: outcome.invalidatedEntities)
    }

    // MARK: Shared

    /// The coordinator model's entity for a request's entity or entity name.
    private static func resolve(_ entity: NSEntityDescription?, named name: String, in model: NSManagedObjectModel, request: String) throws -> NSEntityDescription {
        if let entity, entity.owningModel === model { return entity }
        if let resolved = model.entitiesByName[entity?.name ?? name] { return resolved }
        throw CoreDataError.make(NSCoreDataError, "\(request): the coordinator's model has no entity named '\(entity?.name ?? name)'")
    }

    /// A request predicate as stores evaluate it: key paths checked, managed objects replaced by their IDs.
    private static func storePredicate(_ predicate: NSPredicate?, entity: NSEntityDescription) throws -> NSPredicate? {
        guard let predicate else { return nil }
        try FetchKeyPathValidation.validate(predicate: predicate, sortDescriptors: [], entity: entity)
        return PredicateRewriting.rewrite(predicate) { ($0 as? NSManagedObject)?.objectID ?? $0 }
    }

    /// The batch-executing stores that hold objects of `entity` (or of its sub-entities), among `affected` if given.
    private static func stores(for entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator, affected: [NSPersistentStore]?, request: String) throws -> [BatchExecutingStore] {
        let model = coordinator.managedObjectModel
        return try coordinator.persistentStores.filter { store in
            if let affected, !affected.contains(where: { $0 === store }) { return false }
            let members = model.entities(forConfigurationName: store.configurationName) ?? []
            return members.contains { $0 === entity || entity.isKindOf(entity: $0) || $0.isKindOf(entity: entity) }
        }.map { store in
            guard let batchStore = store as? BatchExecutingStore else { throw unsupported(store, request: request) }
            return batchStore
        }
    }

    private static func unsupported(_ store: NSPersistentStore, request: String) -> NSError {
        CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError, "\(request) is not supported by the \(store.type) store \(store.identifier ?? "")",
                           userInfo: [NSAffectedStoresErrorKey: [store]])
    }
}
