extension SQLiteStore {
    /// Updates the matching rows set-wise: one `UPDATE … SET <column> = ?, …, Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE
    /// Z_PK IN (<the selection>) RETURNING …` (or, when the predicate has no SQL translation, one `… WHERE Z_PK IN
    /// (…)` per chunk of the primary keys a fetch found), with constants bound and simple expressions (key paths of the same
    /// row and `+`, `-`, `*` on numbers) translated to SQL. Other expressions, and attributes kept in external
    /// files, are evaluated row by row in Swift on the rows' current values, then written with one `UPDATE … WHERE
    /// Z_PK = ?` per row — in the same transaction.
    ///
    /// For example, `rating = rating + 1` for the items with `rating < 3`:
    /// ```sql
    /// WITH matched(pk) AS (SELECT t0.Z_PK FROM ZITEM t0 WHERE t0.ZRATING < ?1)
    /// UPDATE ZITEM SET ZRATING = (ZRATING + ?), Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK IN matched RETURNING Z_PK, Z_ENT
    /// ```
    func executeBatchUpdate(_ request: StoreBatchUpdate, requestContext: StoreRequestContext) throws -> StoreBatchOutcome {
        let name = "NSBatchUpdateRequest"
        try checkBatchWritable(name)
        let table = schema.table(for: request.entity)
        var columns: [(assignment: StoreBatchAssignment, column: String)] = []
        var setClauses: [String] = []
        var setArguments: [SQLiteValue] = []
        var rowByRow = false
        for assignment in request.assignments {
            guard let column = schema.columnName(of: assignment.attribute.name, in: request.entity) else {
                throw CoreDataError.make(NSCoreDataError, "\(name): attribute '\(assignment.attribute.name)' of entity '\(request.entity.name ?? "?")' has no column in the store")
            }
            columns.append((assignment, column))
            if assignment.attribute.allowsExternalBinaryDataStorage {
                rowByRow = true
                continue
            }
            switch assignment.value {
            case .constant(let value):
                setClauses.append("\(column) = ?")
                setArguments.append(SQLiteValueCodec.sqliteValue(value, for: assignment.attribute.attributeType))
            case .expression(let expression):
                var translation = BatchUpdateSQL(schema: schema, entity: request.entity)
                if let sql = translation.assignment(expression, to: assignment.attribute) {
                    setClauses.append("\(column) = \(sql)")
                    setArguments += translation.arguments
                } else {
                    rowByRow = true
                }
            }
        }
        do {
            return try inBatchTransaction(requestContext: requestContext) { createdFiles, obsoleteFiles in
                var outcome = StoreBatchOutcome()
                if rowByRow {
                    outcome.objectIDs = try updateRowByRow(request, table: table, columns: columns, createdFiles: &createdFiles, obsoleteFiles: &obsoleteFiles)
                } else {
                    let sets = (setClauses + ["Z_OPT = IFNULL(Z_OPT, 0) + 1"]).joined(separator: ", ")
                    if let selection = batchSelection(request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate) {
                        if !request.needsObjectIDs && canChangeRowsUnlisted(in: table) {
                            outcome.unlistedCount = try updateUnlisted(table: table, selection: selection, sets: sets, setArguments: setArguments)
                        } else {
                            outcome.objectIDs = try updateInOneStatement(table: table, selection: selection, sets: sets, setArguments: setArguments)
                        }
                    } else {
                        outcome.objectIDs = try batchMatchingRows(request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
                        try runChunked(outcome.objectIDs.compactMap(\.primaryKey), leading: setArguments, { "UPDATE \(table.name) SET \(sets) WHERE Z_PK IN (\($0))" })
                    }
                }
                // The row cache forgets the whole hierarchy: cheaper than listing every updated row.
                outcome.invalidatedEntities = [request.entity]
                outcome.changedObjectIDs = try recomputeDerivedAttributes(of: outcome.objectIDs)
                outcome.changedObjectIDs.formUnion(takeDerivedChanges())
                return outcome
            }
        } catch where SQLiteResultCode.constraintUnique ~= error {
            let constraints = BatchValues.constraints(of: request.entity).map { "(\($0.names.joined(separator: ", ")))" }.joined(separator: ", ")
            throw CoreDataError.make(NSManagedObjectConstraintMergeError,
                                     "\(name) would give two objects of entity '\(request.entity.name ?? "?")' the same values of a uniqueness constraint \(constraints)",
                                     userInfo: [NSUnderlyingErrorKey: error])
        }
    }

    /// Updates every selected row with one statement that does not list them (when the caller needs no IDs), and
    /// returns how many it updated — the same statement an application would write:
    /// ```sql
    /// UPDATE ZITEM AS t0 SET ZFLAG = ?2, Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE t0.ZRATING < ?1
    /// ```
    /// (`… WHERE Z_PK IN (SELECT t0.Z_PK FROM … )` when the predicate needs joins). The `SET` list's placeholders
    /// are numbered after the selection's.
    private func updateUnlisted(table: SQLiteSchema.EntityTable, selection: BatchSelection, sets: String, setArguments: [SQLiteValue]) throws -> Int {
        var number = selection.arguments.count
        let numberedSets = sets.split(separator: "?", omittingEmptySubsequences: false).enumerated().map { index, part in
            guard index > 0 else { return String(part) }
            number += 1
            return "?\(number)" + part
        }.joined()
        let target = selection.statementTarget
        return try executeCountingChanges("UPDATE \(table.name)\(target.alias) SET \(numberedSets)\(target.where)",
                                          arguments: selection.arguments + setArguments)
    }

    /// Updates every selected row with one statement, which also returns the updated rows (SQLite ≥ 3.35):
    /// ```sql
    /// WITH matched(pk) AS (SELECT t0.Z_PK FROM … WHERE t0.ZRATING < ?1)
    /// UPDATE ZITEM SET ZRATING = (ZRATING + ?), Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK IN matched RETURNING Z_PK, Z_ENT
    /// ```
    /// The selection comes first in the text, so its numbered placeholders keep their numbers and the `SET` list's
    /// `?` follow them.
    private func updateInOneStatement(table: SQLiteSchema.EntityTable, selection: BatchSelection,
                                      sets: String, setArguments: [SQLiteValue]) throws -> [NSManagedObjectID] {
        let statement = try connection.cachedStatement(
            "WITH matched(pk) AS (SELECT t0.Z_PK \(selection.fromWhere)) UPDATE \(table.name) SET \(sets) WHERE Z_PK IN matched RETURNING Z_PK, Z_ENT")
        defer { statement.reset() }
        try statement.bind(selection.arguments + setArguments)
        var updated: [(Int64, NSEntityDescription)] = []
        while try statement.step() {
            guard let concrete = schema.entity(number: Int(statement.int64(at: 1))) else { continue }
            updated.append((statement.int64(at: 0), concrete))
        }
        return updated.sorted { $0.0 < $1.0 }.map { objectID(for: $0.1, primaryKey: $0.0) }
    }

    /// Evaluates the new values in Swift on each matching row (all on the values before the update), then writes
    /// each row.
    private func updateRowByRow(_ request: StoreBatchUpdate, table: SQLiteSchema.EntityTable, columns: [(assignment: StoreBatchAssignment, column: String)],
                                createdFiles: inout [URL], obsoleteFiles: inout [URL]) throws -> [NSManagedObjectID] {
        let fetched = try fetch(StoreFetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                                                  sortDescriptors: [], fetchLimit: 0, fetchOffset: 0, wantsSnapshots: true, countOnly: false), requestContext: .unattributed)
        let views = RowViews(store: self, requestContext: .unattributed)
        if let snapshots = fetched.snapshots {
            views.preload(Dictionary(zip(fetched.objectIDs, snapshots), uniquingKeysWith: { first, _ in first }))
        }
        var values: [[StoredValue]] = []
        values.reserveCapacity(fetched.objectIDs.count)
        for objectID in fetched.objectIDs {
            let view = views.view(for: objectID)
            values.append(try columns.map { column in
                switch column.assignment.value {
                case .constant(let value): return value
                case .expression(let expression):
                    return try BatchValues.evaluate(expression, on: view, for: column.assignment.attribute, request: "NSBatchUpdateRequest")
                }
            })
        }
        let keys = fetched.objectIDs.compactMap(\.primaryKey)
        let externalColumns = columns.filter { $0.assignment.attribute.allowsExternalBinaryDataStorage }.map(\.column)
        obsoleteFiles += try externalFiles(in: table, columns: externalColumns, keys: keys)
        let statement = try connection.cachedStatement("UPDATE \(table.name) SET \(columns.map { "\($0.column) = ?" }.joined(separator: ", ")), Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK = ?")
        for (rowIndex, key) in keys.enumerated() {
            var index: Int32 = 1
            for (columnIndex, column) in columns.enumerated() {
                try statement.bind(try batchColumnValue(values[rowIndex][columnIndex], for: column.assignment.attribute, createdFiles: &createdFiles), at: index)
                index += 1
            }
            try statement.bind(key, at: index)
            try statement.execute()
        }
        return fetched.objectIDs
    }
}

/// Translates the expressions of a batch update that SQL computes exactly as the predicate layer does: key paths
/// of the updated row's own numeric attributes, numeric constants, and `add:to:`, `from:subtract:`,
/// `multiply:by:` of those (integers stay integers, a floating-point operand makes the result floating point);
/// `now()` for a date attribute. Anything else (division, strings, dates arithmetic, relationships, decimals,
/// floats — whose rounding SQL would not reproduce) is left to row-by-row evaluation.
struct BatchUpdateSQL {
    let schema: SQLiteSchema
    let entity: NSEntityDescription
    /// Bound values of the translation, in placeholder order.
    private(set) var arguments: [SQLiteValue] = []

    init(schema: SQLiteSchema, entity: NSEntityDescription) {
        self.schema = schema
        self.entity = entity
    }

    /// The SQL of `expression` as the new value of `attribute`, or nil if it is not translated.
    mutating func assignment(_ expression: NSExpression, to attribute: NSAttributeDescription) -> String? {
        if case .function(nil, "now", let operands) = expression.node, operands.isEmpty, attribute.attributeType == .dateAttributeType {
            arguments.append(.real(Date().timeIntervalSinceReferenceDate))
            return "?"
        }
        guard Self.isExactNumeric(attribute.attributeType) else { return nil }
        return numeric(expression)
    }

    /// Integer and double columns, whose SQL arithmetic matches the predicate layer's.
    private static func isExactNumeric(_ type: NSAttributeType) -> Bool {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType: return true
        default: return false
        }
    }

    private mutating func numeric(_ expression: NSExpression) -> String? {
        switch expression.node {
        case .constant(let value):
            // Integers and doubles as the predicate layer reads them; decimals and unsigned values beyond
            // Int64 are left to row-by-row evaluation.
            guard let value, let number = PredicateNumber(value) else { return nil }
            switch number {
            case .int(let integer): arguments.append(.integer(integer))
            case .double(let double): arguments.append(.real(double))
            case .uint, .decimal: return nil
            }
            return "?"
        case .keyPath(let operand, let path):
            guard case .evaluatedObject = operand.node, !path.contains("."),
                  let attribute = entity.attributesByName[path], Self.isExactNumeric(attribute.attributeType),
                  !attribute.isTransient, !(attribute is NSDerivedAttributeDescription),
                  let column = schema.columnName(of: path, in: entity)
            else { return nil }
            return column
        case .function(nil, let name, let operands) where operands.count == 2:
            let op: String
            switch name {
            case "add:to:": op = "+"
            case "from:subtract:": op = "-"
            case "multiply:by:": op = "*"
            default: return nil
            }
            guard let left = numeric(operands[0]), let right = numeric(operands[1]) else { return nil }
            return "(\(left) \(op) \(right))"
        default:
            return nil
        }
    }
}
