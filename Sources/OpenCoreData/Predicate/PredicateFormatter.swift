import Foundation

/// Prints predicates and expressions in Apple's `predicateFormat` form: `==` for every spelling of equality,
/// upper-case keywords, string constants in double quotes with `\"` and `\\` escapes, booleans as `1`/`0`, `nil`,
/// arrays as `{1, 2}`, dates as `CAST(<seconds since 2001>, "NSDate")`, left-nested arithmetic parenthesised
/// (`(a + b) + c`), predefined functions in selector form (`sum:({1, 2})`), nested `AND`/`OR` groups parenthesised.
///
/// What has no literal form in the language prints in a form that parses back to the same constant where possible
/// (`CAST("…", "NSUUID")`, `CAST("<base64>", "NSData")` — OpenCoreData extensions), and otherwise as a description
/// that does not parse (block predicates, dictionaries).
enum PredicateFormatter {
    /// Thrown when the current thread's stack is nearly exhausted; the entry points then retry on a large stack.
    private struct TooDeep: Error {}

    static func format(_ predicate: NSPredicate) -> String {
        if let text = try? text(predicate, StackGuard()) { return text }
        return StackGuard.onLargeStack { (try? text(predicate, StackGuard())) ?? "<nested too deeply to print>" }
    }

    static func format(_ expression: NSExpression) -> String {
        if let text = try? text(expression, StackGuard()) { return text }
        return StackGuard.onLargeStack { (try? text(expression, StackGuard())) ?? "<nested too deeply to print>" }
    }

    private static func text(_ predicate: NSPredicate, _ stack: StackGuard) throws -> String {
        guard stack.hasRoom() else { throw TooDeep() }
        if let comparison = predicate as? NSComparisonPredicate { return try text(comparison, stack) }
        if let compound = predicate as? NSCompoundPredicate { return try text(compound, stack) }
        switch predicate.kind {
        case .value(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .block: return "BLOCKPREDICATE(\(address(of: predicate)))"
        case .subclass: return "\(type(of: predicate))"
        }
    }

    private static func address(of object: AnyObject) -> String {
        "0x" + String(UInt(bitPattern: ObjectIdentifier(object).hashValue), radix: 16)
    }

    private static func text(_ predicate: NSComparisonPredicate, _ stack: StackGuard) throws -> String {
        var text = ""
        switch predicate.comparisonPredicateModifier {
        case .any: text += "ANY "
        case .all: text += "ALL "
        case .direct: break
        }
        text += try self.text(predicate.leftExpression, stack) + " "
        switch predicate.predicateOperatorType {
        case .lessThan: text += "<"
        case .lessThanOrEqualTo: text += "<="
        case .greaterThan: text += ">"
        case .greaterThanOrEqualTo: text += ">="
        case .equalTo: text += "=="
        case .notEqualTo: text += "!="
        case .matches: text += "MATCHES"
        case .like: text += "LIKE"
        case .beginsWith: text += "BEGINSWITH"
        case .endsWith: text += "ENDSWITH"
        case .in: text += "IN"
        case .contains: text += "CONTAINS"
        case .between: text += "BETWEEN"
        case .customSelector: text += predicate.customSelector?.name ?? "customSelector"
        }
        text += optionsText(predicate.options)
        return text + " " + (try self.text(predicate.rightExpression, stack))
    }

    static func optionsText(_ options: NSComparisonPredicate.Options) -> String {
        var letters = ""
        if options.contains(.caseInsensitive) { letters += "c" }
        if options.contains(.diacriticInsensitive) { letters += "d" }
        if options.contains(.normalized) { letters += "n" }
        if options.contains(.localeSensitive) { letters += "l" }
        return letters.isEmpty ? "" : "[" + letters + "]"
    }

    private static func text(_ predicate: NSCompoundPredicate, _ stack: StackGuard) throws -> String {
        let subpredicates = predicate.predicates
        func grouped(_ sub: NSPredicate) throws -> String {
            if let compound = sub as? NSCompoundPredicate, compound.compoundPredicateType != .not,
               compound.predicates.count > 1 {
                return "(" + (try text(compound, stack)) + ")"
            }
            return try text(sub, stack)
        }
        switch predicate.compoundPredicateType {
        case .not:
            guard let sub = subpredicates.first else { return "NOT TRUEPREDICATE" }
            return "NOT " + (try grouped(sub))
        case .and:
            if subpredicates.isEmpty { return "TRUEPREDICATE" }
            return try subpredicates.map(grouped).joined(separator: " AND ")
        case .or:
            if subpredicates.isEmpty { return "FALSEPREDICATE" }
            return try subpredicates.map(grouped).joined(separator: " OR ")
        }
    }

    // MARK: Expressions

    private static func text(_ expression: NSExpression, _ stack: StackGuard) throws -> String {
        guard stack.hasRoom() else { throw TooDeep() }
        func format(_ e: NSExpression) throws -> String { try text(e, stack) }
        func format(_ p: NSPredicate) throws -> String { try text(p, stack) }
        func infixOperand(_ e: NSExpression) throws -> String { isInfix(e) ? "(" + (try format(e)) + ")" : try format(e) }
        func postfixOperand(_ e: NSExpression) throws -> String {
            isInfix(e) || isNegativeConstant(e) ? "(" + (try format(e)) + ")" : try format(e)
        }
        switch expression.node {
        case .constant(let value):
            return constantText(value)
        case .evaluatedObject:
            return "SELF"
        case .variable(let name):
            return "$" + name
        case .keyPath(let operand, let path):
            if case .evaluatedObject = operand.node { return keyPathText(path) }
            return try postfixOperand(operand) + "." + keyPathText(path)
        case .function(let target, let name, let arguments):
            if let target {
                if name == "valueForKeyPath:", arguments.count == 1, case .variable = arguments[0].node {
                    return try postfixOperand(target) + "." + format(arguments[0])
                }
                let rest = try arguments.map { ", " + (try format($0)) }.joined()
                return try "FUNCTION(" + format(target) + ", " + quoted(name) + rest + ")"
            }
            if let symbol = PredicateFunctions.infix[name], arguments.count == 2 {
                return try infixOperand(arguments[0]) + " " + symbol + " " + infixOperand(arguments[1])
            }
            if name == "objectFrom:withIndex:", arguments.count == 2 {
                return try postfixOperand(arguments[0]) + "[" + format(arguments[1]) + "]"
            }
            if name == "castObject:toType:", arguments.count == 2 {
                return try "CAST(" + format(arguments[0]) + ", " + format(arguments[1]) + ")"
            }
            return try name + "(" + arguments.map { try format($0) }.joined(separator: ", ") + ")"
        case .union(let left, let right):
            return try infixOperand(left) + " UNION " + infixOperand(right)
        case .intersect(let left, let right):
            return try infixOperand(left) + " INTERSECT " + infixOperand(right)
        case .minus(let left, let right):
            return try infixOperand(left) + " MINUS " + infixOperand(right)
        case .subquery(let collection, let variable, let predicate):
            return try "SUBQUERY(" + format(collection) + ", $" + variable + ", " + format(predicate) + ")"
        case .aggregate(let elements):
            return try "{" + elements.map { try format($0) }.joined(separator: ", ") + "}"
        case .anyKey:
            return "ANYKEY"
        case .block(_, let arguments):
            return "BLOCK(" + address(of: expression) + (try arguments.map { ", " + (try format($0)) }.joined()) + ")"
        case .conditional(let predicate, let yes, let no):
            return try "TERNARY(" + format(predicate) + ", " + format(yes) + ", " + format(no) + ")"
        }
    }

    private static func isInfix(_ expression: NSExpression) -> Bool {
        switch expression.node {
        case .function(nil, let name, let arguments): return PredicateFunctions.infix[name] != nil && arguments.count == 2
        case .union, .intersect, .minus: return true
        default: return false
        }
    }

    private static func isNegativeConstant(_ expression: NSExpression) -> Bool {
        guard case .constant(let value) = expression.node, let value, !(value is Bool),
              let number = PredicateNumber(value) else { return false }
        return number.compare(.int(0)) == .orderedAscending || number.doubleValue.sign == .minus
    }

    /// A key path with reserved words escaped (`#size`); keys that are not identifiers print verbatim, as on Apple.
    static func keyPathText(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false).map { component -> String in
            let key = String(component)
            if PredicateLexer.isIdentifier(key) && PredicateLexer.isReserved(key) { return "#" + key }
            return key
        }.joined(separator: ".")
    }

    // MARK: Constants

    static func constantText(_ value: Any?) -> String {
        guard let value = PredicateValue.normalize(value) else { return "nil" }
        if let flag = value as? Bool, type(of: value) == Bool.self { return flag ? "1" : "0" }
        if let float = value as? Float, type(of: value) == Float.self { return floatText(Double(float), shortest: float.description) }
        if let number = PredicateNumber(value) { return numberText(number) }
        if let string = PredicateValue.string(value) { return quoted(string) }
        if let date = PredicateValue.date(value) {
            return "CAST(" + dateSecondsText(date.timeIntervalSinceReferenceDate) + ", \"NSDate\")"
        }
        if let uuid = PredicateValue.uuid(value) { return "CAST(" + quoted(uuid.uuidString) + ", \"NSUUID\")" }
        if let data = PredicateValue.data(value) { return "CAST(" + quoted(data.base64EncodedString()) + ", \"NSData\")" }
        if let symbol = value as? IndexSymbol { return symbol.name }
        if let collection = PredicateValue.collection(value) {
            return "{" + collection.elements.map(constantText).joined(separator: ", ") + "}"
        }
        if let expression = value as? NSExpression { return format(expression) }
        if let predicate = value as? NSPredicate { return format(predicate) }
        return "\(value)"
    }

    static func numberText(_ number: PredicateNumber) -> String {
        switch number {
        case .int(let v): return String(v)
        case .uint(let v): return String(v)
        case .double(let v): return floatText(v, shortest: nil)
        case .decimal(let v): return v.description
        }
    }

    private static func floatText(_ value: Double, shortest: String?) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return shortest ?? "\(value)"
    }

    /// Seconds since the reference date as Apple prints them (`%f`), unless that loses precision.
    private static func dateSecondsText(_ seconds: Double) -> String {
        let fixed = String(format: "%.6f", seconds)
        if Double(fixed) == seconds { return fixed }
        return "\(seconds)"
    }

    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
