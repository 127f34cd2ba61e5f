/// The SQL functions an SQLite store registers on its connection.
///
/// - `NSCoreDataDATriggerUpdatedAffectedObjectValue` and `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue`:
///   Apple's derived-attribute triggers call them (store-format.md §4); without them every write to a table with
///   such triggers fails with "no such function".
/// - `OCD_STRING_MATCH(operator, options, value, pattern)`: the predicate layer's string operators and ordering
///   comparisons with Foundation's case/diacritic folding (`PredicateStringComparison`), so SQL and in-memory
///   evaluation agree; a NULL operand gives 0 (false), as Apple's string function does.
/// - `OCD_LOWERCASE(text)`, `OCD_UPPERCASE(text)`: the `lowercase:`/`uppercase:` functions.
enum SQLiteFunctions {
    /// String operator codes of `OCD_STRING_MATCH`.
    enum StringOperator: Int64 {
        case equal = 0, beginsWith = 1, endsWith = 2, contains = 3, like = 4, matches = 5
        case lessThan = 6, lessThanOrEqual = 7, greaterThan = 8, greaterThanOrEqual = 9
    }

    static func register(on connection: SQLiteConnection, recordingDerivedChangesIn recorder: DerivedValueChanges) {
        // Apple's triggers pass (table, Z_ENT, Z_PK, attribute name, new value): the store records which objects
        // the triggers changed, so contexts can refresh them.
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
            try? connection.registerFunction(name: name, argumentCount: -1, deterministic: false) { arguments in
                if arguments.count >= 3, case .text(let table) = arguments[0], case .integer(let entity) = arguments[1], case .integer(let key) = arguments[2] {
                    recorder.record(table: table, entity: Int(entity), primaryKey: key)
                }
                return .null
            }
        }
        try? connection.registerFunction(name: "OCD_STRING_MATCH", argumentCount: 4, deterministic: true) { arguments in
            guard case .integer(let code) = arguments[0], let op = StringOperator(rawValue: code),
                case .integer(let rawOptions) = arguments[1]
            else { return .null }
            guard let value = text(arguments[2]), let pattern = text(arguments[3]) else { return .integer(0) }
            let options = NSComparisonPredicate.Options(rawValue: UInt(rawOptions))
            let matched: Bool
            switch op {
            case .equal: matched = PredicateStringComparison.equal(value, pattern, options: options)
            case .beginsWith: matched = !pattern.isEmpty && PredicateStringComparison.hasPrefix(value, pattern, options: options)
            case .endsWith: matched = !pattern.isEmpty && PredicateStringComparison.hasSuffix(value, pattern, options: options)
            case .contains: matched = !pattern.isEmpty && PredicateStringComparison.contains(value, pattern, options: options)
            case .lessThan: matched = PredicateStringComparison.compare(value, pattern, options: options) == .orderedAscending
            case .lessThanOrEqual: matched = PredicateStringComparison.compare(value, pattern, options: options) != .orderedDescending
            case .greaterThan: matched = PredicateStringComparison.compare(value, pattern, options: options) == .orderedDescending
            case .greaterThanOrEqual: matched = PredicateStringComparison.compare(value, pattern, options: options) != .orderedAscending
            case .like, .matches:
                let type: NSComparisonPredicate.Operator = op == .like ? .like : .matches
                let predicate = NSComparisonPredicate(leftExpression: NSExpression(forConstantValue: value), rightExpression: NSExpression(forConstantValue: pattern),
                                                      modifier: .direct, type: type, options: options)
                matched = (try? predicate.evaluateThrowing(with: nil)) ?? false
            }
            return .integer(matched ? 1 : 0)
        }
        try? connection.registerCollation(name: "OCD_CASE_INSENSITIVE") { a, b in
            PredicateStringComparison.compare(a, b, options: [.caseInsensitive])
        }
        // `lowercase:` and `uppercase:` of the predicate language (Foundation's case mapping).
        for (name, transform) in [("OCD_LOWERCASE", { (s: String) in s.lowercased() }), ("OCD_UPPERCASE", { (s: String) in s.uppercased() })] {
            try? connection.registerFunction(name: name, argumentCount: 1, deterministic: true) { arguments in
                guard let text = text(arguments[0]) else { return .null }
                return .text(transform(text))
            }
        }
        // `OCD_FOLD_<options>`: ordering under `[c]` (1), `[d]` (2) and `[cd]` (3), as the predicate layer orders.
        for rawOptions in [1, 2, 3] {
            let options = NSComparisonPredicate.Options(rawValue: UInt(rawOptions))
            try? connection.registerCollation(name: "OCD_FOLD_\(rawOptions)") { a, b in
                PredicateStringComparison.compare(a, b, options: options)
            }
        }
        try? connection.registerCollation(name: "OCD_LOCALIZED") { a, b in a.localizedCompare(b) }
        try? connection.registerCollation(name: "OCD_LOCALIZED_CASE_INSENSITIVE") { a, b in a.localizedCaseInsensitiveCompare(b) }
        try? connection.registerCollation(name: "OCD_LOCALIZED_STANDARD") { a, b in a.localizedStandardCompare(b) }
    }

    private static func text(_ value: SQLiteValue) -> String? {
        switch value {
        case .text(let text): return text
        case .integer(let integer): return String(integer)
        case .real(let real): return String(real)
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        case .null: return nil
        }
    }
}

/// The objects Apple's derived-attribute triggers changed during a save (filled by the trigger functions).
final class DerivedValueChanges: @unchecked Sendable {
    // @unchecked Sendable: used only under the coordinator's lock, by the store's own connection.
    private var changes: [(String, Int, Int64)] = []

    func record(table: String, entity: Int, primaryKey: Int64) { changes.append((table, entity, primaryKey)) }
    func reset() { changes.removeAll() }
    func take() -> [(String, Int, Int64)] {
        defer { changes.removeAll() }
        return changes
    }
}
