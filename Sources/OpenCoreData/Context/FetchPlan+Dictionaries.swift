/// `.dictionaryResultType`: each result a dictionary of the requested properties — attributes, to-one
/// relationships (as object IDs), key paths, `"objectID"` (the row's object ID, as Apple's), and
/// `NSExpressionDescription`s — with Apple's aggregate semantics:
/// aggregates (`count:`, `sum:`, `average:`, `min:`, `max:`) summarize all matching rows, or each group of
/// `propertiesToGroupBy`; `havingPredicate` filters the groups; `returnsDistinctResults` drops repeats. Keys
/// whose value is nil are left out, as Apple's are. Numbers are `NSNumber`s (`FoundationBridging`).
extension FetchPlan {
    /// One requested column: its result key and how it is computed.
    struct DictionaryColumn {
        var key: String
        var keyPath: String?
        var expression: NSExpression?
        var resultType: NSAttributeType
        /// The aggregate function name when the column summarizes rows (`sum:`).
        var aggregate: String? {
            guard let expression, case .function(nil, let name, _) = expression.node,
                  ["count:", "sum:", "average:", "min:", "max:", "median:", "mode:", "stddev:"].contains(name) else { return nil }
            return name
        }
    }

    private static func columns(_ properties: [Any]?, entity: NSEntityDescription) throws -> [DictionaryColumn] {
        let list: [Any] = properties ?? entity.properties.filter { $0 is NSAttributeDescription && !$0.isTransient }
        return try list.map { item in
            switch item {
            case let description as NSExpressionDescription:
                guard let expression = description.expression else {
                    throw CoreDataError.make(NSCoreDataError, "The expression description '\(description.name)' has no expression")
                }
                return DictionaryColumn(key: description.name, keyPath: nil, expression: expression, resultType: description.expressionResultType)
            case let property as NSPropertyDescription:
                return DictionaryColumn(key: property.name, keyPath: property.name, expression: nil, resultType: (property as? NSAttributeDescription)?.attributeType ?? .objectIDAttributeType)
            case let keyPath as String where keyPath == "objectID" && entity.propertiesByName[keyPath] == nil:
                // Apple's "objectID" column: each row's object ID, as `expressionForEvaluatedObject()` gives it.
                return DictionaryColumn(key: keyPath, keyPath: nil, expression: NSExpression.expressionForEvaluatedObject(), resultType: .objectIDAttributeType)
            case let keyPath as String:
                return DictionaryColumn(key: keyPath, keyPath: keyPath, expression: nil, resultType: .undefinedAttributeType)
            default:
                throw CoreDataError.make(NSCoreDataError, "propertiesToFetch may hold property descriptions and key-path strings, not \(ValueConversion.typeName(item))")
            }
        }
    }

    /// The dictionaries of a dictionary fetch.
    func dictionaryResults() throws -> [Any] {
        let columns = try Self.columns(propertiesToFetch, entity: entity)
        let groupBy = try Self.columns(propertiesToGroupBy ?? [], entity: entity)
        let aggregating = !groupBy.isEmpty || columns.contains { $0.aggregate != nil }
        if !groupBy.isEmpty, let stray = columns.first(where: { column in column.aggregate == nil && !groupBy.contains { $0.key == column.key } }) {
            throw CoreDataError.make(NSCoreDataError, "With propertiesToGroupBy, propertiesToFetch may hold only grouped properties and aggregates; '\(stray.key)' is neither")
        }
        if groupBy.isEmpty, aggregating, let stray = columns.first(where: { $0.aggregate == nil }) {
            throw CoreDataError.make(NSCoreDataError, "An aggregate fetch without propertiesToGroupBy may not also fetch the per-row property '\(stray.key)'")
        }
        var results: [NSDictionary]
        if aggregating {
            results = try storeGroups(columns: columns, groupBy: groupBy) ?? objectGroups(columns: columns, groupBy: groupBy)
            if let havingPredicate {
                results = try results.filter { dictionary in
                    var variables: [String: Any] = [:]
                    for case (let key as String, let value) in dictionary { variables[key] = value }
                    return try havingPredicate.withSubstitutionVariables(variables).evaluateThrowing(with: dictionary)
                }
            }
            if !sortDescriptors.isEmpty, sortDescriptors.allSatisfy({ descriptor in results.allSatisfy { $0[descriptor.key ?? ""] != nil } || columns.contains { $0.key == descriptor.key } }) {
                results = try NSSortDescriptor.sorted(results, using: sortDescriptors)
            }
            if fetchOffset > 0 { results = Array(results.dropFirst(fetchOffset)) }
            if fetchLimit > 0 { results = Array(results.prefix(fetchLimit)) }
        } else {
            results = try storeRowDictionaries(columns: columns) ?? matchingObjects(limited: true).map { object in
                let dictionary = NSMutableDictionary()
                for column in columns { if let value = try value(of: column, for: object) { dictionary[column.key] = value } }
                return dictionary
            }
        }
        if returnsDistinctResults {
            var seen = Set<NSDictionary>()
            results = results.filter { seen.insert($0).inserted }
        }
        return results
    }

    /// The groups of an aggregating fetch computed over the matching objects, in order of first appearance (the
    /// objects are sorted already), each a dictionary of its grouped values and its aggregates.
    private func objectGroups(columns: [DictionaryColumn], groupBy: [DictionaryColumn]) throws -> [NSDictionary] {
        let objects = try matchingObjects(limited: false)
        // Groups in order of first appearance (rows are already sorted), keyed by their grouped values.
        var order: [NSDictionary] = []
        var members: [NSDictionary: [NSManagedObject]] = [:]
        for object in objects {
            let key = NSMutableDictionary()
            for column in groupBy { if let value = try value(of: column, for: object) { key[column.key] = value } }
            let frozen = key.copy() as! NSDictionary
            if members[frozen] == nil { order.append(frozen) }
            members[frozen, default: []].append(object)
        }
        if groupBy.isEmpty && order.isEmpty { order = [NSDictionary()] }   // aggregates over no rows: one result
        return try order.map { key in
            let dictionary = key.mutableCopy() as! NSMutableDictionary
            let group = members[key] ?? []
            for column in columns {
                if column.aggregate != nil {
                    if let value = try aggregateValue(column, over: group) { dictionary[column.key] = value }
                } else if let value = key[column.key] {
                    dictionary[column.key] = value
                }
            }
            for column in groupBy where !columns.contains(where: { $0.key == column.key }) { dictionary[column.key] = nil }
            return dictionary
        }
    }

    /// A column's value for one row (nil when it has none).
    private func value(of column: DictionaryColumn, for object: NSManagedObject) throws -> Any? {
        var value: Any?
        if let keyPath = column.keyPath {
            value = object.value(forKeyPath: keyPath)
        } else if let expression = column.expression {
            value = try expression.evaluatedValue(with: object, context: nil)
        }
        if let related = value as? NSManagedObject { value = related.objectID }
        if ValueConversion.isNull(value) { return nil }
        return value.map { FoundationBridging.containerElement(Self.converted($0, to: column.resultType)) }
    }

    /// An aggregate column over a group of rows: the function applied to the non-nil values of its argument.
    private func aggregateValue(_ column: DictionaryColumn, over rows: [NSManagedObject]) throws -> Any? {
        guard let expression = column.expression, case .function(nil, let name, let arguments) = expression.node, let argument = arguments.first else { return nil }
        var values: [Any] = []
        for row in rows {
            var value = try argument.evaluatedValue(with: row, context: nil)
            if let related = value as? NSManagedObject { value = related.objectID }
            if let value, !ValueConversion.isNull(value) { values.append(value) }
        }
        if name == "count:" { return NSNumber(value: values.count) }
        if values.isEmpty && name != "sum:" { return nil }
        let result = try NSExpression(forFunction: name, arguments: [NSExpression(forConstantValue: values)]).evaluatedValue(with: nil, context: nil)
        return result.map { FoundationBridging.containerElement(Self.converted($0, to: column.resultType)) }
    }

    /// A value in the representation of an expression result type (integers as integer `NSNumber`s, …).
    static func converted(_ value: Any, to type: NSAttributeType) -> Any {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return ValueConversion.integer(value).map { NSNumber(value: $0) } ?? value
        case .doubleAttributeType, .floatAttributeType:
            return ValueConversion.real(value).map { NSNumber(value: $0) } ?? value
        case .decimalAttributeType:
            return ValueConversion.decimal(value).map { NSDecimalNumber(decimal: $0) } ?? value
        case .booleanAttributeType:
            return ValueConversion.integer(value).map { NSNumber(value: $0 != 0) } ?? value
        case .dateAttributeType:
            if let seconds = value as? Double { return Date(timeIntervalSinceReferenceDate: seconds) }
            return value
        default:
            return value
        }
    }
}
