import Foundation

/// Grouped aggregates as one SQL query (`GROUP BY`), so that a dictionary fetch of sums or counts per group reads no
/// row into an object. For example, moods per country with their average rating:
/// ```sql
/// SELECT t0.ZCOUNTRYCODE, COUNT(t0.ZRATING), AVG(t0.ZRATING) FROM ZMOOD t0 WHERE t0.ZRATING >= ?1
/// GROUP BY t0.ZCOUNTRYCODE
/// ```
extension SQLiteStore: AggregatingStore {
    func aggregate(_ request: StoreAggregateRequest, requestContext: StoreRequestContext) throws -> [StoreAggregateGroup]? {
        var compiler = SQLiteFetchCompiler(schema: schema, entity: request.entity)
        var conditions: [String] = []
        if let entityCondition = compiler.entityCondition(includesSubentities: request.includesSubentities) { conditions.append(entityCondition) }
        var groupColumns: [String] = []
        let aggregateTerms: [String], orderTerms: [String]
        // Where each grouped property's columns start in the result row, and whether a to-one has an entity column.
        var groupLayout: [(offset: Int, hasEntityColumn: Bool)] = []
        do {
            if let predicate = request.predicate { conditions.append(try compiler.condition(predicate)) }
            for property in request.groupBy {
                let columns = try self.columns(of: property, compiler: &compiler)
                groupLayout.append((groupColumns.count, columns.count == 2))
                groupColumns += columns
            }
            aggregateTerms = try request.aggregates.map { aggregate in
                let column = try column(of: aggregate.attribute, compiler: &compiler)
                switch aggregate.function {
                case .count: return "COUNT(\(column))"
                case .sum: return "SUM(\(column))"
                case .average: return "AVG(\(column))"
                case .min: return "MIN(\(column))"
                case .max: return "MAX(\(column))"
                }
            }
            orderTerms = try compiler.orderBy(request.sortDescriptors)
        } catch let untranslatable as SQLiteFetchCompiler.Untranslatable {
            logger.debug("grouping \(request.entity.name ?? "?") rows in memory: \(untranslatable.reason)")
            return nil
        }
        var sql = "SELECT " + (groupColumns + aggregateTerms).joined(separator: ", ") + " FROM \(compiler.fromClause)"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if !groupColumns.isEmpty { sql += " GROUP BY " + groupColumns.joined(separator: ", ") }
        if !orderTerms.isEmpty {
            // Groups with equal sort keys keep the order of their first rows, as groups made from sorted rows do; when
            // the descriptors name every grouped key, no two groups are equal. (Unsorted groups come in SQLite's
            // grouping order, as in Apple's SQL: no order is promised.)
            let sortedKeys = Set(request.sortDescriptors.compactMap(\.key))
            let tieBreak = request.groupBy.allSatisfy { sortedKeys.contains($0.name) } ? [] : ["MIN(t0.Z_PK)"]
            sql += " ORDER BY " + (orderTerms + tieBreak).joined(separator: ", ")
        }
        let connection = readConnection(for: requestContext)
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(compiler.arguments)
        var groups: [StoreAggregateGroup] = []
        do {
            while try statement.step() {
                var group = StoreAggregateGroup(groupValues: [], aggregateValues: [])
                for (property, layout) in zip(request.groupBy, groupLayout) {
                    let value = statement.value(at: Int32(layout.offset))
                    if let attribute = property as? NSAttributeDescription {
                        group.groupValues.append(.attribute(SQLiteValueCodec.storedValue(value, for: attribute.attributeType)))
                    } else {
                        let entity = layout.hasEntityColumn ? statement.value(at: Int32(layout.offset + 1)) : .null
                        group.groupValues.append(.destination(try destination(value, entity: entity, of: property as! NSRelationshipDescription, on: connection)))
                    }
                }
                for (offset, aggregate) in request.aggregates.enumerated() {
                    let value = statement.value(at: Int32(groupColumns.count + offset))
                    group.aggregateValues.append(Self.storedValue(value, of: aggregate))
                }
                groups.append(group)
            }
        } catch let error as NSError where (error.userInfo[SQLiteErrorKey.message] as? String)?.contains("integer overflow") == true {
            // A sum past Int64: the context sums the values itself (in wider arithmetic).
            logger.debug("summing \(request.entity.name ?? "?") rows in memory: integer overflow in SQL")
            return nil
        }
        return groups
    }

    /// The column of an attribute of the fetched entity, in the compiler's fetched table.
    private func column(of attribute: NSAttributeDescription, compiler: inout SQLiteFetchCompiler) throws -> String {
        guard case .value(let sql, _, _) = try compiler.resolve([attribute.name], in: 0) else {
            throw SQLiteFetchCompiler.Untranslatable(reason: "grouped or aggregated key \(attribute.name)")
        }
        return sql
    }

    /// The columns a grouped property is read from: an attribute's column, or a to-one's key column and, when its
    /// destination has sub-entities, the column of the destination's entity number.
    private func columns(of property: NSPropertyDescription, compiler: inout SQLiteFetchCompiler) throws -> [String] {
        if let attribute = property as? NSAttributeDescription { return [try column(of: attribute, compiler: &compiler)] }
        let table = schema.table(for: compiler.entity)
        guard let relationship = property as? NSRelationshipDescription, !relationship.isToMany,
              let key = table.columns.firstIndex(where: { if case .toOne(let r) = $0.kind { return r === relationship }; return false })
        else { throw SQLiteFetchCompiler.Untranslatable(reason: "grouped key \(property.name)") }
        let entity = table.columns.firstIndex { if case .toOneEntity(let r) = $0.kind { return r === relationship }; return false }
        return [key, entity].compactMap { $0 }.map { "t0." + table.columns[$0].name }
    }

    /// The destination of a grouped to-one from its key column and entity column, as a row's to-one is decoded.
    private func destination(_ key: SQLiteValue, entity: SQLiteValue, of relationship: NSRelationshipDescription, on connection: SQLiteConnection) throws -> NSManagedObjectID? {
        guard case .integer(let primaryKey) = key, var destination = relationship.destinationEntity else { return nil }
        if case .integer(let number) = entity, let concrete = schema.entity(number: Int(number)) {
            destination = concrete
        } else if !destination.subentities.isEmpty, let concrete = try concreteEntity(of: primaryKey, in: destination, on: connection) {
            destination = concrete
        }
        return objectID(for: destination, primaryKey: primaryKey)
    }

    /// An aggregate's value in stored form: counts and sums as SQLite computes them, extremes decoded as their
    /// attribute's values are.
    private static func storedValue(_ value: SQLiteValue, of aggregate: StoreAggregateRequest.Aggregate) -> StoredValue {
        switch (aggregate.function, value) {
        case (.sum, .null): return .integer(0)   // a sum of no value is 0, as the in-memory sum's
        case (_, .null): return .null
        case (.min, _), (.max, _): return SQLiteValueCodec.storedValue(value, for: aggregate.attribute.attributeType)
        case (_, .integer(let integer)): return .integer(integer)
        case (_, .real(let real)): return .real(real)
        default: return .null
        }
    }
}
