import Foundation

/// Dictionary fetches that group and aggregate, computed by the store (`GROUP BY` in SQL) when they group by
/// attributes and to-one relationships of the fetched entity and aggregate its attributes, so that no managed object
/// is realized: the groups come back as rows of values (a to-one as its destination's object ID).
/// The context's own computation over objects (``FetchPlan/dictionaryResults()``) stays for the rest, listed in
/// DEVIATIONS S12: key paths through relationships, `count:` of a to-many, functions other than `count:`, `sum:`,
/// `average:`, `min:` and `max:`, sums over decimals, extremes of strings, unsaved changes the fetch must see, child
/// contexts, several stores, and stores that do not aggregate (``AggregatingStore``).
///
/// ```swift
/// let request = NSFetchRequest<NSDictionary>(entityName: "Mood")
/// request.resultType = .dictionaryResultType
/// let average = NSExpressionDescription()
/// average.name = "average"
/// average.expression = NSExpression(forFunction: "average:", arguments: [NSExpression(forKeyPath: "rating")])
/// average.expressionResultType = .doubleAttributeType
/// request.propertiesToFetch = ["countryCode", average]
/// request.propertiesToGroupBy = ["countryCode"]
/// try context.fetch(request)   // one SELECT … GROUP BY, no Mood object made
/// ```
extension FetchPlan {
    /// The groups as dictionaries (before `havingPredicate`, sorting on results, offset and limit), or nil when the
    /// store cannot compute them.
    func storeGroups(columns: [DictionaryColumn], groupBy: [DictionaryColumn]) throws -> [NSDictionary]? {
        let stores = self.stores()
        guard stores.count == 1, let store = stores[0] as? AggregatingStore else { return nil }
        let grouped = groupBy.map(groupedProperty)
        guard grouped.allSatisfy({ $0 != nil }) else { return nil }
        var aggregates: [(key: String, resultType: NSAttributeType, aggregate: StoreAggregateRequest.Aggregate)] = []
        for column in columns where column.aggregate != nil {
            guard let aggregate = storeAggregate(column) else { return nil }
            aggregates.append((column.key, column.resultType, aggregate))
        }
        let groupedKeys = Set(groupBy.compactMap(\.keyPath))
        guard sortDescriptors.allSatisfy({ $0.key.map(groupedKeys.contains) ?? false }) else { return nil }
        guard storesAnswerAlone() else { return nil }   // unsaved changes count: objects are needed
        let request = StoreAggregateRequest(
            entity: entity, includesSubentities: includesSubentities, predicate: storePredicate,
            groupBy: grouped.map { $0! }, aggregates: aggregates.map(\.aggregate), sortDescriptors: sortDescriptors)
        guard let groups = try coordinator.aggregate(request, from: store, for: context.storeReadContext) else { return nil }
        return try groups.map { group in
            let dictionary = NSMutableDictionary()
            for (index, column) in groupBy.enumerated() where columns.contains(where: { $0.key == column.key }) {
                let value: Any?
                switch group.groupValues[index] {
                case .attribute(let stored): value = ValueConversion.kvcValue(stored, for: request.groupBy[index] as! NSAttributeDescription)
                case .destination(let objectID): value = objectID
                }
                guard let value else { continue }
                dictionary[column.key] = FoundationBridging.containerElement(Self.converted(value, to: column.resultType))
            }
            for (index, aggregate) in aggregates.enumerated() {
                if let value = try Self.aggregateResult(group.aggregateValues[index], of: aggregate.aggregate, resultType: aggregate.resultType) {
                    dictionary[aggregate.key] = value
                }
            }
            return dictionary
        }
    }

    /// The property a grouped column names, when the store may group by it: a stored attribute of the entity whose
    /// values compare equal exactly when their stored forms do, or a to-one relationship (grouped by destination).
    private func groupedProperty(_ column: DictionaryColumn) -> NSPropertyDescription? {
        guard let keyPath = column.keyPath else { return nil }
        if let relationship = entity.propertiesByName[keyPath] as? NSRelationshipDescription {
            return relationship.isToMany || relationship.isTransient ? nil : relationship
        }
        guard let attribute = entity.propertiesByName[keyPath] as? NSAttributeDescription, !attribute.isTransient else { return nil }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
             .doubleAttributeType, .floatAttributeType, .stringAttributeType, .dateAttributeType:
            return attribute
        default:
            return nil
        }
    }

    /// The store's form of an aggregate column: a function the store computes over a stored attribute of the entity
    /// whose type it computes exactly as the context does.
    private func storeAggregate(_ column: DictionaryColumn) -> StoreAggregateRequest.Aggregate? {
        guard let expression = column.expression, case .function(nil, let name, let arguments) = expression.node,
              let function = StoreAggregateRequest.Function(rawValue: name), arguments.count == 1,
              case .keyPath(let operand, let path) = arguments[0].node, case .evaluatedObject = operand.node,
              let attribute = entity.propertiesByName[path] as? NSAttributeDescription, !attribute.isTransient
        else { return nil }
        let numeric: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType, .floatAttributeType]
        switch function {
        case .count:
            guard numeric.contains(attribute.attributeType)
                    || [.booleanAttributeType, .stringAttributeType, .dateAttributeType].contains(attribute.attributeType) else { return nil }
        case .sum, .average:
            guard numeric.contains(attribute.attributeType) else { return nil }
        case .min, .max:
            guard numeric.contains(attribute.attributeType) || attribute.attributeType == .dateAttributeType else { return nil }
        }
        return StoreAggregateRequest.Aggregate(function: function, attribute: attribute)
    }

    /// An aggregate's result as the computation over objects gives it: the value passes through the same function
    /// (over itself alone), so its number type is the one the function gives, then takes the column's result type.
    private static func aggregateResult(_ stored: StoredValue, of aggregate: StoreAggregateRequest.Aggregate, resultType: NSAttributeType) throws -> Any? {
        let value: Any?
        switch (aggregate.function, stored) {
        case (.count, .integer(let count)): return NSNumber(value: Int(count))
        case (.min, _), (.max, _): value = ValueConversion.kvcValue(stored, for: aggregate.attribute)
        case (_, .integer(let integer)): value = Int(integer)
        case (_, .real(let real)): value = real
        default: value = nil
        }
        guard let value else { return nil }
        let result = try NSExpression(forFunction: aggregate.function.rawValue, arguments: [NSExpression(forConstantValue: [value])])
            .evaluatedValue(with: nil, context: nil)
        return result.map { FoundationBridging.containerElement(converted($0, to: resultType)) }
    }
}
