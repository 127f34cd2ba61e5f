extension SQLiteFetchCompiler {
    /// `entity == e`, `entity != e` and `entity IN {e…}` on a row's `Z_ENT` (`sql`): an `NSEntityDescription` is its
    /// own number, an `is` check's kind (`EntityKind`) the numbers of the entity and its sub-entities. An entity this
    /// store does not have matches no row.
    mutating func compareEntity(_ sql: String, _ type: NSComparisonPredicate.Operator, _ value: Any?) throws -> String {
        func numbers(_ element: Any?) throws -> [Int] {
            if let entity = element as? NSEntityDescription {
                guard let own = schema.model.entitiesByName[entity.name ?? ""] else { return [] }
                return [schema.number(of: own)]
            }
            if let kind = element as? EntityKind {
                guard let entity = schema.model.entitiesByName[kind.name] else { return [] }
                return schema.mapping(for: entity).entityNumbersIncludingSubentities
            }
            throw Untranslatable(reason: "entity compared with \(ValueConversion.typeName(element))")
        }
        let matched: [Int]
        switch type {
        case .equalTo, .notEqualTo: matched = try numbers(value)
        case .in:
            guard let elements = Self.elements(value) else { throw Untranslatable(reason: "IN with a non-collection") }
            matched = try elements.flatMap(numbers)
        default: throw Untranslatable(reason: "operator \(type) on an entity")
        }
        let list = matched.map(String.init).joined(separator: ", ")
        let test = matched.isEmpty ? "0" : "\(sql) IN (\(list))"
        return type == .notEqualTo ? "NOT (\(test))" : test
    }
}
