/// Batch requests in the in-memory store, with the SQLite store's semantics: rows are selected with the store's
/// fetch, every change is computed (and checked) before any row is touched, so a failing request leaves the store
/// as it was. Apple documents batch requests for SQLite stores only; this is an OpenCoreData extension.
extension InMemoryStore: BatchExecutingStore {
    func executeBatchInsert(_ request: StoreBatchInsert, requestContext: StoreRequestContext) throws -> StoreBatchOutcome {
        let entity = request.entity
        let layout = entity.layout
        let constraints = BatchValues.constraints(of: entity)
        // The constrained values of the stored rows, per constraint (NULLs never collide).
        var indexes: [[[StoredValue]: NSManagedObjectID]] = constraints.map { constraint in
            var index: [[StoredValue]: NSManagedObjectID] = [:]
            for row in rows.values where row.objectID.entity.isKindOf(entity: constraint.declaring) {
                let values = UniquenessChecker.values(of: row, constraint: constraint.names)
                if !values.contains(where: \.isNull) { index[values] = row.objectID }
            }
            return index
        }
        let ignored = Set(layout.attributes.indices.filter { layout.attributes[$0].isTransient || layout.attributes[$0] is NSDerivedAttributeDescription })
        var added: [NSManagedObjectID: ObjectSnapshot] = [:]
        var addedOrder: [NSManagedObjectID] = []
        var replaced: [NSManagedObjectID: ObjectSnapshot] = [:]
        var outcome = StoreBatchOutcome()
        var pendingKeys = try newObjectIDs(for: entity, count: request.rows.count)[...]
        for values in request.rows {
            var attributes = values
            for slot in ignored { attributes[slot] = .null }
            var conflict: (existing: NSManagedObjectID, constraint: Int)?
            for (number, constraint) in constraints.enumerated() {
                let key = constraint.slots.map { attributes[$0] }
                if !key.contains(where: \.isNull), let existing = indexes[number][key] {
                    conflict = (existing, number)
                    break
                }
            }
            if let conflict {
                let constraint = constraints[conflict.constraint]
                switch request.conflictResolution {
                case .fail:
                    throw BatchValues.constraintViolation(entity: constraint.declaring, constraint: constraint.names, values: constraint.slots.map { attributes[$0] },
                                                          objectIDs: [conflict.existing], request: "NSBatchInsertRequest")
                case .storeWins:
                    outcome.objectIDs.append(conflict.existing)
                case .incomingWins:
                    let existing = conflict.existing
                    let current = added[existing] ?? replaced[existing] ?? rows[existing]?.snapshot ?? existing.entity.layout.emptySnapshot()
                    var snapshot = current
                    let existingSlots = existing.entity.layout.slots
                    for (slot, attribute) in layout.attributes.enumerated() where !ignored.contains(slot) {
                        if case .attribute(let target, let same)? = existingSlots[attribute.name], same === attribute { snapshot.attributes[target] = attributes[slot] }
                    }
                    snapshot.version = current.version + 1
                    if added[existing] != nil { added[existing] = snapshot } else { replaced[existing] = snapshot }
                    reindex(existing, old: current, new: snapshot, constraints: constraints, indexes: &indexes)
                    outcome.objectIDs.append(existing)
                }
                continue
            }
            let objectID = pendingKeys.removeFirst()
            let snapshot = ObjectSnapshot(attributes: attributes, toOne: Array(repeating: nil, count: layout.toOneRelationships.count), version: 1)
            added[objectID] = snapshot
            addedOrder.append(objectID)
            for (number, constraint) in constraints.enumerated() {
                let key = constraint.slots.map { attributes[$0] }
                if !key.contains(where: \.isNull) { indexes[number][key] = objectID }
            }
            outcome.objectIDs.append(objectID)
        }
        for objectID in addedOrder { rows[objectID] = Row(objectID: objectID, snapshot: added[objectID]!, toMany: [:]) }
        for (objectID, snapshot) in replaced { rows[objectID]?.snapshot = snapshot }
        // New and replaced rows are in `objectIDs`, which the cache forgets.
        outcome.changedObjectIDs = recomputeDerivedAttributesAfterBatch()
        return outcome
    }

    /// Moves a row's entries in the constraint indexes from its old values to its new ones.
    private func reindex(_ objectID: NSManagedObjectID, old: ObjectSnapshot, new: ObjectSnapshot,
                         constraints: [(declaring: NSEntityDescription, names: [String], slots: [Int])], indexes: inout [[[StoredValue]: NSManagedObjectID]]) {
        let slots = objectID.entity.layout.slots
        for (number, constraint) in constraints.enumerated() {
            let targets = constraint.names.compactMap { name -> Int? in
                if case .attribute(let slot, _)? = slots[name] { return slot }
                return nil
            }
            guard targets.count == constraint.names.count else { continue }
            let before = targets.map { old.attributes[$0] }, after = targets.map { new.attributes[$0] }
            if indexes[number][before] == objectID { indexes[number][before] = nil }
            if !after.contains(where: \.isNull) { indexes[number][after] = objectID }
        }
    }

    /// The rows of `entity` (and its sub-entities, when asked) that `predicate` matches, in primary-key order.
    private func batchMatchingRows(_ entity: NSEntityDescription, includesSubentities: Bool, predicate: NSPredicate?) throws -> [NSManagedObjectID] {
        guard let predicate else {
            return rows.keys.filter { includesSubentities ? $0.entity.isKindOf(entity: entity) : $0.entity === entity }
                .sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        }
        return try fetch(StoreFetchRequest(entity: entity, includesSubentities: includesSubentities, predicate: predicate,
                                           sortDescriptors: [], fetchLimit: 0, fetchOffset: 0, wantsSnapshots: false, countOnly: false), requestContext: .unattributed).objectIDs
    }

    func executeBatchUpdate(_ request: StoreBatchUpdate, requestContext: StoreRequestContext) throws -> StoreBatchOutcome {
        let matched = try batchMatchingRows(request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
        // Every new value is computed on the rows as they are before the update; simple arithmetic on the row's own
        // numbers directly on the stored values, anything else through the predicate layer.
        let direct = request.assignments.map { assignment -> BatchRowArithmetic? in
            guard case .expression(let expression) = assignment.value else { return nil }
            return BatchRowArithmetic(expression, target: assignment.attribute)
        }
        let views = RowViews(store: self, requestContext: requestContext)
        var updated: [(NSManagedObjectID, ObjectSnapshot)] = []
        updated.reserveCapacity(matched.count)
        for objectID in matched {
            guard var snapshot = rows[objectID]?.snapshot else { continue }
            let slots = objectID.entity.layout.slots
            let before = snapshot
            for (index, assignment) in request.assignments.enumerated() {
                guard case .attribute(let slot, _)? = slots[assignment.attribute.name] else { continue }
                switch assignment.value {
                case .constant(let value): snapshot.attributes[slot] = value
                case .expression(let expression):
                    if let arithmetic = direct[index], let value = arithmetic.value(on: before, entity: objectID.entity) {
                        snapshot.attributes[slot] = value
                    } else {
                        snapshot.attributes[slot] = try BatchValues.evaluate(expression, on: views.view(for: objectID), for: assignment.attribute, request: "NSBatchUpdateRequest")
                    }
                }
            }
            snapshot.version += 1
            updated.append((objectID, snapshot))
        }
        try checkUniqueness(after: updated, entity: request.entity)
        for (objectID, snapshot) in updated { rows[objectID]?.snapshot = snapshot }
        var outcome = StoreBatchOutcome(objectIDs: updated.map(\.0))
        outcome.changedObjectIDs = Set(outcome.objectIDs)
        outcome.changedObjectIDs.formUnion(recomputeDerivedAttributesAfterBatch())
        return outcome
    }

    /// Throws if updated rows would share the values of a uniqueness constraint with another row.
    private func checkUniqueness(after updated: [(NSManagedObjectID, ObjectSnapshot)], entity: NSEntityDescription) throws {
        let constraints = BatchValues.constraints(of: entity)
        guard !constraints.isEmpty, !updated.isEmpty else { return }
        let changed = Dictionary(updated, uniquingKeysWith: { _, last in last })
        for constraint in constraints {
            var seen: [[StoredValue]: NSManagedObjectID] = [:]
            for row in rows.values where row.objectID.entity.isKindOf(entity: constraint.declaring) {
                let snapshot = changed[row.objectID] ?? row.snapshot
                let view = Row(objectID: row.objectID, snapshot: snapshot, toMany: [:])
                let values = UniquenessChecker.values(of: view, constraint: constraint.names)
                guard !values.contains(where: \.isNull) else { continue }
                if let other = seen[values] {
                    throw BatchValues.constraintViolation(entity: constraint.declaring, constraint: constraint.names, values: values,
                                                          objectIDs: [other, row.objectID], request: "NSBatchUpdateRequest")
                }
                seen[values] = row.objectID
            }
        }
    }

    func executeBatchDelete(_ request: StoreBatchDelete, requestContext: StoreRequestContext) throws -> StoreBatchOutcome {
        let matched: [NSManagedObjectID]
        if let objectIDs = request.objectIDs {
            var seen = Set<NSManagedObjectID>()
            matched = objectIDs.filter { rows[$0] != nil && seen.insert($0).inserted }
        } else if request.isLimited {
            matched = try fetch(request.fetchRequest, requestContext: requestContext).objectIDs
        } else {
            matched = try batchMatchingRows(request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
        }
        // The rows to delete: the matched ones and, transitively, those their cascade rules reach.
        var doomed = Set<NSManagedObjectID>()
        var frontier = matched
        while !frontier.isEmpty {
            var next: [NSManagedObjectID] = []
            for objectID in frontier where doomed.insert(objectID).inserted {
                guard let row = rows[objectID] else { continue }
                let layout = objectID.entity.layout
                for (slot, relationship) in layout.toOneRelationships.enumerated() where BatchDeleteRules.action(of: relationship) == .cascade {
                    if let destination = row.snapshot.toOne[slot], rows[destination] != nil { next.append(destination) }
                }
                for (slot, relationship) in layout.toManyRelationships.enumerated() where BatchDeleteRules.action(of: relationship) == .cascade {
                    next += (row.toMany[slot] ?? []).filter { rows[$0] != nil }
                }
            }
            frontier = next
        }
        // Nullify rules on the surviving rows, computed aside (a mandatory inverse fails before anything changes).
        var changed: [NSManagedObjectID: (snapshot: ObjectSnapshot, toMany: [Int: [NSManagedObjectID]])] = [:]
        func current(_ objectID: NSManagedObjectID) -> (snapshot: ObjectSnapshot, toMany: [Int: [NSManagedObjectID]])? {
            changed[objectID] ?? rows[objectID].map { ($0.snapshot, $0.toMany) }
        }
        func survives(_ objectID: NSManagedObjectID) -> Bool { rows[objectID] != nil && !doomed.contains(objectID) }
        for objectID in doomed.sorted(by: { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }) {
            guard let row = rows[objectID] else { continue }
            let layout = objectID.entity.layout
            for (slot, relationship) in layout.toOneRelationships.enumerated() where BatchDeleteRules.action(of: relationship) == .nullify {
                guard let inverse = relationship.inverseRelationship, !inverse.isTransient,
                      let destination = row.snapshot.toOne[slot], survives(destination), var target = current(destination)
                else { continue }
                if !inverse.isOptional { throw BatchDeleteRules.mandatoryInverseError(relationship, source: objectID.entity, shape: .oneToOne) }
                switch destination.entity.layout.slots[inverse.name] {
                case .toMany(let inverseSlot, _)?:
                    target.toMany[inverseSlot]?.removeAll { $0 == objectID }
                case .toOne(let inverseSlot, _)?:
                    if target.snapshot.toOne[inverseSlot] == objectID { target.snapshot.toOne[inverseSlot] = nil }
                default:
                    continue
                }
                target.snapshot.version += 1
                changed[destination] = target
            }
            for (slot, relationship) in layout.toManyRelationships.enumerated() where BatchDeleteRules.action(of: relationship) == .nullify {
                guard let inverse = relationship.inverseRelationship, !inverse.isTransient else { continue }
                let members = (row.toMany[slot] ?? []).filter(survives)
                guard !members.isEmpty else { continue }
                if !inverse.isToMany {
                    if !inverse.isOptional { throw BatchDeleteRules.mandatoryInverseError(relationship, source: objectID.entity, shape: .oneToMany) }
                    for member in members {
                        guard var target = current(member), case .toOne(let inverseSlot, _)? = member.entity.layout.slots[inverse.name],
                              target.snapshot.toOne[inverseSlot] == objectID
                        else { continue }
                        target.snapshot.toOne[inverseSlot] = nil
                        target.snapshot.version += 1
                        changed[member] = target
                    }
                } else {
                    for member in members {
                        guard var target = current(member), case .toMany(let inverseSlot, _)? = member.entity.layout.slots[inverse.name] else { continue }
                        if !inverse.isOptional, !(target.toMany[inverseSlot] ?? []).contains(where: { $0 != objectID && survives($0) }) {
                            throw BatchDeleteRules.mandatoryInverseError(relationship, source: objectID.entity, shape: .manyToMany)
                        }
                        target.toMany[inverseSlot]?.removeAll { $0 == objectID }
                        target.snapshot.version += 1
                        changed[member] = target
                    }
                }
            }
        }
        // Apply: the rows go, nullified rows change, and no surviving list keeps a deleted member (as a join or a
        // key column in SQL cannot point at a deleted row's membership).
        for objectID in doomed { rows[objectID] = nil }
        for (objectID, value) in changed {
            guard let row = rows[objectID] else { continue }
            row.snapshot = value.snapshot
            row.toMany = value.toMany
        }
        for row in rows.values where !row.toMany.isEmpty {
            for (slot, members) in row.toMany where members.contains(where: doomed.contains) {
                row.toMany[slot] = members.filter { !doomed.contains($0) }
            }
        }
        var outcome = StoreBatchOutcome(objectIDs: matched)
        outcome.changedObjectIDs = doomed.union(changed.keys)
        outcome.changedObjectIDs.formUnion(recomputeDerivedAttributesAfterBatch())
        return outcome
    }

    /// Recomputes every derived attribute after a batch request; returns the objects whose values changed.
    private func recomputeDerivedAttributesAfterBatch() -> Set<NSManagedObjectID> {
        var derivedByEntity: [ObjectIdentifier: [(Int, NSDerivedAttributeDescription)]] = [:]
        for entity in model?.entities ?? [] {
            let derived = DerivedAttributes.slots(of: entity)
            if !derived.isEmpty { derivedByEntity[ObjectIdentifier(entity)] = derived }
        }
        guard !derivedByEntity.isEmpty else { return [] }
        var changed = Set<NSManagedObjectID>()
        let views = RowViews(store: self, requestContext: .unattributed)
        for row in rows.values {
            guard let derived = derivedByEntity[ObjectIdentifier(row.objectID.entity)] else { continue }
            for (slot, attribute) in derived {
                let value = DerivedAttributes.value(of: attribute, for: views.view(for: row.objectID))
                if row.snapshot.attributes[slot] != value {
                    row.snapshot.attributes[slot] = value
                    changed.insert(row.objectID)
                }
            }
        }
        return changed
    }
}

/// Arithmetic of a batch update computed directly on a row's stored values, with the predicate layer's rules
/// (integers stay integers unless they overflow, a floating-point operand makes the result floating point): key
/// paths of the row's own integer and double attributes, integer and double constants, and `add:to:`,
/// `from:subtract:`, `multiply:by:` of those, for an integer or double attribute. Anything else is evaluated through
/// the predicate layer.
struct BatchRowArithmetic {
    private indirect enum Term {
        case attribute(String)
        case constant(PredicateNumber)
        case operation(PredicateNumber.Operation, Term, Term)
    }

    private let term: Term
    private let target: NSAttributeDescription

    init?(_ expression: NSExpression, target: NSAttributeDescription) {
        switch target.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType: break
        default: return nil
        }
        guard let term = Self.term(expression, entity: target.entity) else { return nil }
        self.term = term
        self.target = target
    }

    private static func term(_ expression: NSExpression, entity: NSEntityDescription) -> Term? {
        switch expression.node {
        case .constant(let value):
            guard let value, let number = PredicateNumber(value) else { return nil }
            switch number {
            case .int, .double: return .constant(number)
            case .uint, .decimal: return nil
            }
        case .keyPath(let operand, let path):
            guard case .evaluatedObject = operand.node, let attribute = entity.attributesByName[path], !attribute.isTransient else { return nil }
            switch attribute.attributeType {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType: return .attribute(path)
            default: return nil
            }
        case .function(nil, let name, let operands) where operands.count == 2:
            let operation: PredicateNumber.Operation
            switch name {
            case "add:to:": operation = .add
            case "from:subtract:": operation = .subtract
            case "multiply:by:": operation = .multiply
            default: return nil
            }
            guard let left = term(operands[0], entity: entity), let right = term(operands[1], entity: entity) else { return nil }
            return .operation(operation, left, right)
        default:
            return nil
        }
    }

    /// The stored result for a row of `entity`; nil when a value is missing (the predicate layer then decides).
    func value(on row: ObjectSnapshot, entity: NSEntityDescription) -> StoredValue? {
        guard let number = evaluate(term, row: row, layout: entity.layout) else { return nil }
        return ValueConversion.storedValue(fromKVC: number.value, for: target)
    }

    private func evaluate(_ term: Term, row: ObjectSnapshot, layout: EntityLayout) -> PredicateNumber? {
        switch term {
        case .constant(let number):
            return number
        case .attribute(let name):
            guard case .attribute(let slot, _)? = layout.slots[name] else { return nil }
            switch row.attributes[slot] {
            case .integer(let value): return .int(value)
            case .real(let value): return .double(value)
            default: return nil
            }
        case .operation(let operation, let left, let right):
            guard let a = evaluate(left, row: row, layout: layout), let b = evaluate(right, row: row, layout: layout) else { return nil }
            return PredicateNumber.apply(operation, a, b)
        }
    }
}
