/// Stores that execute batch requests (`NSBatchInsertRequest`, `NSBatchUpdateRequest`, `NSBatchDeleteRequest`)
/// themselves, on rows, without managed objects: the in-memory and SQLite stores. The coordinator hands them
/// requests already checked against the model (``StoreBatchInsert`` …), with the coordinator's lock held, and
/// removes the rows they report as changed from its row cache.
///
/// Every method is atomic: all of the request, or (throwing) none of it.
protocol BatchExecutingStore: SnapshotStore {
    /// Inserts rows; uniqueness conflicts are resolved as `request.conflictResolution` says.
    func executeBatchInsert(_ request: StoreBatchInsert, requestContext: StoreRequestContext) throws -> StoreBatchOutcome
    /// Sets attributes of the matching rows and increments their versions.
    func executeBatchUpdate(_ request: StoreBatchUpdate, requestContext: StoreRequestContext) throws -> StoreBatchOutcome
    /// Deletes the matching rows, applying the relationships' delete rules as ``BatchDeleteRules`` describes.
    func executeBatchDelete(_ request: StoreBatchDelete, requestContext: StoreRequestContext) throws -> StoreBatchOutcome
}

/// How a batch insert resolves an object whose uniqueness-constrained values a stored row already has.
enum BatchConflictResolution: Sendable {
    /// The request fails (`NSErrorMergePolicy`).
    case fail
    /// The stored row takes the inserted values (`NSMergeByPropertyObjectTrumpMergePolicy`, `NSOverwriteMergePolicy`).
    case incomingWins
    /// The stored row is kept as it is (`NSMergeByPropertyStoreTrumpMergePolicy`, `NSRollbackMergePolicy`).
    case storeWins
}

/// A batch insert as a store receives it.
struct StoreBatchInsert {
    /// The (concrete, non-abstract) entity of the new rows.
    var entity: NSEntityDescription
    /// The rows: attribute values by the entity layout's attribute slot, defaults applied, transformable values
    /// already transformed to data; transient and derived slots are ignored.
    var rows: [[StoredValue]]
    var conflictResolution: BatchConflictResolution
}

/// A new value of a batch update.
enum StoreBatchValue {
    /// A constant, in stored form.
    case constant(StoredValue)
    /// An expression evaluated on each row's values before the update.
    case expression(NSExpression)
}

/// One attribute a batch update sets.
struct StoreBatchAssignment {
    var attribute: NSAttributeDescription
    var value: StoreBatchValue
}

/// A batch update as a store receives it.
struct StoreBatchUpdate {
    var entity: NSEntityDescription
    var includesSubentities: Bool
    /// Which rows (managed objects already replaced by their IDs); nil for all.
    var predicate: NSPredicate?
    var assignments: [StoreBatchAssignment]
    /// Whether the caller needs the updated rows' IDs (`updatedObjectIDsResultType`); when it does not, a store may
    /// update set-wise without listing the rows, reporting the hierarchy in ``StoreBatchOutcome/invalidatedEntities``.
    var needsObjectIDs = true
}

/// A batch delete as a store receives it: the rows a predicate matches, or listed rows.
struct StoreBatchDelete {
    var entity: NSEntityDescription
    var includesSubentities: Bool
    /// Which rows (managed objects already replaced by their IDs); nil for all. Ignored when `objectIDs` is set.
    var predicate: NSPredicate?
    /// The rows to delete, when the request named them (IDs of this store only).
    var objectIDs: [NSManagedObjectID]?
    /// The fetch request's order, offset and limit: with a limit or offset, only the rows the fetch would return
    /// in that order are deleted.
    var sortDescriptors: [NSSortDescriptor] = []
    var fetchLimit = 0
    var fetchOffset = 0
    /// Whether the caller needs the deleted rows' IDs (`resultTypeObjectIDs`); see ``StoreBatchUpdate/needsObjectIDs``.
    var needsObjectIDs = true

    /// Whether the rows must be selected as a fetch with order and limits.
    var isLimited: Bool { fetchLimit > 0 || fetchOffset > 0 }

    /// The fetch that selects the rows (for stores and for limited deletes).
    var fetchRequest: StoreFetchRequest {
        StoreFetchRequest(entity: entity, includesSubentities: includesSubentities, predicate: predicate, sortDescriptors: isLimited ? sortDescriptors : [],
                          fetchLimit: fetchLimit, fetchOffset: fetchOffset, wantsSnapshots: false, countOnly: false)
    }
}

/// What a store reports after a batch request.
struct StoreBatchOutcome {
    /// The objects the request inserted, updated or deleted (in input order for inserts).
    var objectIDs: [NSManagedObjectID] = []
    /// Every row whose stored state the request changed — including rows deleted by cascade rules, rows whose
    /// relationships a delete rule cleared and rows whose derived attributes changed — for the row cache. An
    /// insert need not list its `objectIDs` here: the cache forgets those too.
    var changedObjectIDs: Set<NSManagedObjectID> = []
    /// Entities every row of whose inheritance hierarchy may have changed, when the store did not list the rows
    /// (a request that did not need object IDs): the row cache forgets those hierarchies.
    var invalidatedEntities: [NSEntityDescription] = []
    /// How many rows the request changed, when the store did not list them in `objectIDs`.
    var unlistedCount: Int?

    /// How many rows the request inserted, updated or deleted.
    var affectedCount: Int { unlistedCount ?? objectIDs.count }
}

// MARK: - Delete rules

/// The delete rules a batch delete applies, as Apple's Core Data applies them (the SQLite store does this with
/// temporary `AFTER DELETE` triggers; OpenCoreData computes the same effects set-wise, for both of its stores).
///
/// Evidence:
/// - Apple's "Core Data Batch Programming Guide — Implementing Batch Deletes" (developer.apple.com/library/archive/
///   featuredarticles/CoreData_Batch_Guide/BatchDeletes/BatchDeletes.html): batch deletes run in the store, at the
///   SQL level; "any validation rules that are part of the data model are not enforced"; the changes are not
///   reflected in objects in memory.
/// - Bart Jacobs, "Core Data and Swift: Batch Deletes" (code.tutsplus.com, iOS 9): "no validations are performed
///   … Despite these limitations, the delete rules for relationships are applied by Core Data."
/// - What Core Data's SQLite adapter generates for a batch delete (`-[NSSQLiteAdapter generateTriggerForEntity:…]`
///   and `generateCorrelationTableTriggerStatementsForRelationship:…`, as seen in public reverse-engineered
///   listings of CoreData.framework), per relationship of the deleted entity, its sub-entities and, recursively,
///   of entities reached by cascade:
///   - `cascade`: the related rows are deleted (to-one: `DELETE … WHERE Z_PK = OLD.<fk>`; one-to-many: `DELETE …
///     WHERE <inverse fk> = OLD.Z_PK`; many-to-many: the join rows and the partner rows), with their own rules;
///   - `nullify`: a to-one inverse is set to NULL (with its entity and order columns) and its row's `Z_OPT`
///     incremented; a to-many inverse only gets its owner's `Z_OPT` incremented (many-to-many: the join rows are
///     deleted); when the inverse is **mandatory** (not optional) and a related row exists, the delete fails with
///     "Batch delete failed due to mandatory OTO/OTM/MTM nullify inverse on <Entity>/<relationship>" (SwiftData
///     users report this exact message for `delete(model:)`);
///   - `noAction`: nothing;
///   - `deny` (any other rule): the request fails before deleting anything, with `NSCoreDataError` (134060),
///     userInfo `Reason` = "Delete rule is not supported for batch deletes" and `Relationship` =
///     "<Entity>.<relationship>".
///
/// Rows the request itself deletes are not updated by nullify rules, and a mandatory inverse only fails the
/// request if its row survives the delete (Apple's triggers run after each row is deleted).
enum BatchDeleteRules {
    /// What a relationship's rule does when its source rows are batch deleted.
    enum Action {
        case none
        case cascade
        case nullify
    }

    /// The action of a relationship (nil for deny and unknown rules, which ``checkSupported(_:)`` refuses).
    static func action(of relationship: NSRelationshipDescription) -> Action? {
        if relationship.isTransient { return Action.none }
        switch relationship.deleteRule {
        case .noActionDeleteRule: return Action.none
        case .nullifyDeleteRule: return .nullify
        case .cascadeDeleteRule: return .cascade
        default: return nil
        }
    }

    /// Throws Apple's error if deleting objects of `entity` (or its sub-entities) could reach a relationship
    /// whose rule batch deletes do not support (deny), through cascade rules.
    static func checkSupported(_ entity: NSEntityDescription) throws {
        var visited = Set<ObjectIdentifier>()
        var pending = [entity]
        while let current = pending.popLast() {
            guard visited.insert(ObjectIdentifier(current)).inserted else { continue }
            pending += current.subentities
            for relationship in current.relationshipsByName.values.sorted(by: { $0.name < $1.name }) {
                switch action(of: relationship) {
                case .cascade?:
                    if let destination = relationship.destinationEntity { pending.append(destination) }
                case .none?, .nullify?:
                    continue
                case nil:
                    let name = "\(relationship.entity.name ?? "?").\(relationship.name)"
                    throw CoreDataError.make(
                        NSCoreDataError,
                        "Delete rule is not supported for batch deletes: \(name) has the deny rule, which a batch delete cannot check; delete such objects through a context",
                        userInfo: ["Reason": "Delete rule is not supported for batch deletes", "Relationship": name])
                }
            }
        }
    }

    /// The shape of a nullified relationship whose mandatory inverse makes a batch delete fail.
    enum MandatoryShape: String {
        /// The relationship is to-one.
        case oneToOne = "OTO"
        /// The relationship is to-many with a to-one inverse.
        case oneToMany = "OTM"
        /// Many-to-many.
        case manyToMany = "MTM"
    }

    /// Apple's failure for a nullify rule whose mandatory inverse would be left pointing at a deleted object.
    static func mandatoryInverseError(_ relationship: NSRelationshipDescription, source: NSEntityDescription, shape: MandatoryShape) -> NSError {
        let reason = "Batch delete failed due to mandatory \(shape.rawValue) nullify inverse on \(source.name ?? "?")/\(relationship.name)"
        return CoreDataError.make(NSSQLiteError, "Constraint trigger violation: \(reason)",
                                  userInfo: [NSSQLiteErrorDomain: NSNumber(value: 19), "Reason": reason, "Relationship": "\(source.name ?? "?").\(relationship.name)"])
    }
}

// MARK: - Values

/// Conversions of batch request values, shared by the request layer and the stores.
enum BatchValues {
    /// The stored form of `value` for `attribute` (transformable values through their transformer); throws
    /// `NSManagedObjectValidationError` (1550) for a value of the wrong type.
    static func storedValue(_ value: Any?, for attribute: NSAttributeDescription, request: String) throws -> StoredValue {
        if attribute.attributeType == .transformableAttributeType {
            if value == nil || ValueConversion.isNull(value) { return .null }
            return TransformableValues.storedValue(from: value, attribute: attribute)
        }
        // nil and NSNull become .null there.
        guard let stored = ValueConversion.storedValue(fromKVC: value, for: attribute) else {
            throw wrongType(value, for: attribute, request: request)
        }
        return stored
    }

    /// The stored value of `expression` evaluated on a row (seen through key-value coding).
    static func evaluate(_ expression: NSExpression, on row: Any, for attribute: NSAttributeDescription, request: String) throws -> StoredValue {
        let value: Any?
        do {
            value = try expression.evaluatedValue(with: row, context: nil)
        } catch {
            throw CoreDataError.make(NSCoreDataError, "\(request): the expression \(expression) for attribute '\(attribute.name)' of entity '\(attribute.entity.name ?? "?")' cannot be evaluated: \(error.localizedDescription)",
                                     userInfo: [NSValidationKeyErrorKey: attribute.name, NSUnderlyingErrorKey: error])
        }
        return try storedValue(value, for: attribute, request: request)
    }

    /// The error for a value of the wrong type.
    static func wrongType(_ value: Any?, for attribute: NSAttributeDescription, request: String) -> NSError {
        var userInfo: [String: Any] = [NSValidationKeyErrorKey: attribute.name]
        if let value { userInfo[NSValidationValueErrorKey] = value }
        return CoreDataError.make(
            NSManagedObjectValidationError,
            "\(request): a value of type \(ValueConversion.typeName(value)) cannot be stored in attribute '\(attribute.name)' of entity '\(attribute.entity.name ?? "?")', which takes \(ValueConversion.expectedKinds(attribute))",
            userInfo: userInfo)
    }

    /// The error for a uniqueness constraint a batch request would violate.
    static func constraintViolation(entity: NSEntityDescription, constraint: [String], values: [StoredValue], objectIDs: [NSManagedObjectID], request: String) -> NSError {
        let shown = zip(constraint, values).map { "\($0) = \(describe($1))" }.joined(separator: ", ")
        return CoreDataError.make(
            NSManagedObjectConstraintMergeError,
            "\(request) violates the uniqueness constraint (\(constraint.joined(separator: ", "))) of entity '\(entity.name ?? "?")': another object has \(shown)",
            userInfo: [NSAffectedObjectsErrorKey: objectIDs, "constraint": constraint])
    }

    private static func describe(_ value: StoredValue) -> String {
        switch value {
        case .null: return "nil"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .decimal(let v): return "\(v)"
        case .text(let v): return "\"\(v)\""
        case .date(let v): return "\(v)"
        case .data(let v): return "<\(v.count) bytes>"
        case .uuid(let v): return v.uuidString
        case .url(let v): return v.absoluteString
        }
    }

    /// The values of the uniqueness constraints of `entity` (its own and inherited ones), each with its
    /// declaring entity, for a row's attribute values; to-one relationships in constraints are not supported by
    /// batch requests and are left out (a batch request cannot set them).
    static func constraints(of entity: NSEntityDescription) -> [(declaring: NSEntityDescription, names: [String], slots: [Int])] {
        var result: [(declaring: NSEntityDescription, names: [String], slots: [Int])] = []
        var current: NSEntityDescription? = entity
        let layout = entity.layout
        while let declaring = current {
            for constraint in declaring.uniquenessConstraintNames where !constraint.isEmpty {
                let slots = constraint.compactMap { name -> Int? in
                    if case .attribute(let slot, _)? = layout.slots[name] { return slot }
                    return nil
                }
                if slots.count == constraint.count { result.append((declaring, constraint, slots)) }
            }
            current = declaring.superentity
        }
        return result
    }
}
