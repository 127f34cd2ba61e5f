// NSPredicate and NSExpression in NSKeyedArchiver form, with Apple's class names and NSCoding keys, as
// they appear in compiled models (`.mom`), model caches (`Z_MODELCACHE`), and mapping models
// (`valueexpressiondata`: a keyed archive whose root is an expression).
//
// The layouts of NSComparisonPredicate, NSCompoundPredicate, the predicate operators (NSEqualityPredicateOperator,
// NSComparisonPredicateOperator, NSInPredicateOperator), NSConstantValueExpression, NSSelfExpression,
// NSVariableExpression, NSKeyPathExpression, NSKeyPathSpecifierExpression and NSFunctionExpression are those
// Apple writes in the corpus (research/store-format.md §2.3, the corpus mapping models). The keys of
// NSSetExpression, NSSubqueryExpression, NSAggregateExpression, NSTernaryExpression, NSAnyKeyExpression and the
// string / BETWEEN / custom-selector operators do not occur in the corpus; they follow the same naming
// (`NSLeftExpression`, `NSCollection`, `NSPredicate`, `NSFlags`, …) and round-trip here, but Apple's reading of
// them is not verified (DEVIATIONS.md).

import Foundation
import OpenCoreDataPredicate
// Scoped imports take precedence over Foundation's unusable classes of the same names, which this file sees too.
import class OpenCoreDataPredicate.NSComparisonPredicate
import class OpenCoreDataPredicate.NSCompoundPredicate
import class OpenCoreDataPredicate.NSExpression
import class OpenCoreDataPredicate.NSPredicate
import OpenCoreDataSupport

/// Decodes and encodes predicates and expressions as keyed archives.
///
/// ```swift
/// let expression = try PredicateArchiving.expression(fromArchive: valueExpressionData)
/// expression.description                              // "$source.continent.numericISO3166Code"
/// let data = try PredicateArchiving.archivedData(with: expression)
/// ```
package enum PredicateArchiving {
    // MARK: Standalone archives

    /// Decodes a keyed archive whose root object is an expression (a mapping model's `valueexpressiondata`).
    /// Throws an `NSError` (NSCocoaErrorDomain, `NSCoderReadCorruptError` 4864) for anything else.
    package static func expression(fromArchive data: Data) throws -> NSExpression {
        do {
            let reader = try KeyedArchiveReader(data: data)
            return try decodeExpression(try reader.root(), in: reader)
        } catch {
            throw corruptArchiveError("expression", error)
        }
    }

    /// Decodes a keyed archive whose root object is a predicate.
    /// Throws an `NSError` (NSCocoaErrorDomain, `NSCoderReadCorruptError` 4864) for anything else.
    static func predicate(fromArchive data: Data) throws -> NSPredicate {
        do {
            let reader = try KeyedArchiveReader(data: data)
            return try decodePredicate(try reader.root(), in: reader)
        } catch {
            throw corruptArchiveError("predicate", error)
        }
    }

    /// A keyed archive whose root is `expression`. Throws `NSCoderInvalidValueError` (4866) for expressions Apple
    /// cannot archive either (blocks) and for constants that are not Foundation values.
    static func archivedData(with expression: NSExpression) throws -> Data {
        var writer = KeyedArchiveWriter()
        do {
            let root = try encode(expression, into: &writer)
            return writer.archive(root: root)
        } catch {
            throw CoreDataError.make(CocoaError.coderInvalidValue.rawValue, "Cannot archive the expression \(expression): \(error)")
        }
    }

    /// A keyed archive whose root is `predicate`. Throws `NSCoderInvalidValueError` (4866) for block predicates
    /// and constants that are not Foundation values.
    static func archivedData(with predicate: NSPredicate) throws -> Data {
        var writer = KeyedArchiveWriter()
        do {
            let root = try encode(predicate, into: &writer)
            return writer.archive(root: root)
        } catch {
            throw CoreDataError.make(CocoaError.coderInvalidValue.rawValue, "Cannot archive the predicate \(predicate): \(error)")
        }
    }

    package static func corruptArchiveError(_ what: String, _ error: Error) -> NSError {
        CoreDataError.make(CocoaError.coderReadCorrupt.rawValue, "The data is not a keyed archive of an \(what): \(error)")
    }

    // MARK: Decoding

    /// The class name Apple gives the receiver of predefined functions (`sum:`, `add:to:`, …).
    static let predicateUtilitiesClassName = "_NSPredicateUtilities"

    /// Decodes object `index` of an archive as an expression.
    package static func decodeExpression(_ index: Int, in reader: KeyedArchiveReader, depth: Int = 0) throws(KeyedArchiveError) -> NSExpression {
        guard depth < KeyedArchive.maximumGraphDepth else { throw KeyedArchiveError(description: "expression nested too deeply") }
        func sub(_ key: String) throws(KeyedArchiveError) -> NSExpression {
            try decodeExpression(try reader.requiredReference(key, of: index), in: reader, depth: depth + 1)
        }
        func subList(_ key: String) throws(KeyedArchiveError) -> [NSExpression] {
            var result: [NSExpression] = []
            for element in try reader.elements(key, of: index) {
                result.append(try decodeExpression(element, in: reader, depth: depth + 1))
            }
            return result
        }
        let className = reader.className(index) ?? "?"
        switch className {
        case "NSConstantValueExpression":
            if try reader.string("NSConstantValueClassName", of: index) == predicateUtilitiesClassName {
                return NSExpression(forConstantValue: PredicateUtilities.shared)
            }
            guard let value = try reader.reference("NSConstantValue", of: index) else { return NSExpression(forConstantValue: nil) }
            return NSExpression(forConstantValue: try reader.foundationValue(at: value))
        case "NSSelfExpression":
            return NSExpression.expressionForEvaluatedObject()
        case "NSVariableExpression":
            guard let name = try reader.string("NSVariable", of: index) else { throw KeyedArchiveError(description: "\(reader.describe(index)): NSVariable is missing") }
            return NSExpression(forVariable: name)
        case "NSKeyPathSpecifierExpression":
            // Only meaningful as the argument of a key path expression; alone it stands for the key path itself.
            guard let path = try reader.string("NSKeyPath", of: index) else { throw KeyedArchiveError(description: "\(reader.describe(index)): NSKeyPath is missing") }
            return NSExpression(forKeyPath: path)
        case "NSKeyPathExpression", "NSFunctionExpression":
            guard let selector = try reader.string("NSSelectorName", of: index) else {
                throw KeyedArchiveError(description: "\(reader.describe(index)): NSSelectorName is missing")
            }
            let operandIndex = try reader.requiredReference("NSOperand", of: index)
            let argumentIndexes = try reader.elements("NSArguments", of: index)
            if className == "NSKeyPathExpression" || ["valueForKey:", "valueForKeyPath:"].contains(selector),
               argumentIndexes.count == 1, reader.className(argumentIndexes[0]) == "NSKeyPathSpecifierExpression",
               let path = try reader.string("NSKeyPath", of: argumentIndexes[0]) {
                let operand = try decodeExpression(operandIndex, in: reader, depth: depth + 1)
                return NSExpression(node: .keyPath(operand: operand, path: path))
            }
            let operand = try decodeExpression(operandIndex, in: reader, depth: depth + 1)
            let arguments = try subList("NSArguments")
            if case .constant(let value) = operand.node, value is PredicateUtilities {
                // A predefined function: its name and argument count must be ones the evaluator knows.
                guard let arity = PredicateFunctions.table[selector] else {
                    throw KeyedArchiveError(description: "\(reader.describe(index)): '\(selector)' is not a predefined function")
                }
                guard arity.map({ arguments.count == $0 }) ?? !arguments.isEmpty else {
                    throw KeyedArchiveError(description: "\(reader.describe(index)): '\(selector)' takes \(arity.map(String.init) ?? "at least 1") arguments, not \(arguments.count)")
                }
                return NSExpression(node: .function(target: nil, name: selector, arguments: arguments))
            }
            return NSExpression(node: .function(target: operand, name: selector, arguments: arguments))
        case "NSSetExpression":
            let left = try sub("NSLeftExpression"), right = try sub("NSRightExpression")
            switch try reader.integer("NSExpressionType", of: index) {
            case 5: return NSExpression(forUnionSet: left, with: right)
            case 6: return NSExpression(forIntersectSet: left, with: right)
            case 7: return NSExpression(forMinusSet: left, with: right)
            default: throw KeyedArchiveError(description: "\(reader.describe(index)): unknown set expression type")
            }
        case "NSSubqueryExpression":
            let collection = try sub("NSCollection")
            let variableIndex = try reader.requiredReference("NSVariable", of: index)
            let variable: String
            if reader.className(variableIndex) == "NSVariableExpression" {
                guard let name = try reader.string("NSVariable", of: variableIndex) else { throw KeyedArchiveError(description: "subquery variable without a name") }
                variable = name
            } else {
                variable = try reader.string(at: variableIndex)
            }
            let predicate = try decodePredicate(try reader.requiredReference("NSPredicate", of: index), in: reader, depth: depth + 1)
            return NSExpression(forSubquery: collection, usingIteratorVariable: variable, predicate: predicate)
        case "NSAggregateExpression":
            return NSExpression(forAggregate: try subList("NSCollection"))
        case "NSAnyKeyExpression":
            return NSExpression.expressionForAnyKey()
        case "NSTernaryExpression":
            let predicate = try decodePredicate(try reader.requiredReference("NSPredicate", of: index), in: reader, depth: depth + 1)
            return NSExpression(forConditional: predicate, trueExpression: try sub("NSTrueExpression"), falseExpression: try sub("NSFalseExpression"))
        default:
            throw KeyedArchiveError(description: "\(reader.describe(index)) is not an expression")
        }
    }

    /// Decodes object `index` of an archive as a predicate.
    package static func decodePredicate(_ index: Int, in reader: KeyedArchiveReader, depth: Int = 0) throws(KeyedArchiveError) -> NSPredicate {
        guard depth < KeyedArchive.maximumGraphDepth else { throw KeyedArchiveError(description: "predicate nested too deeply") }
        switch reader.className(index) {
        case "NSTruePredicate": return NSPredicate(value: true)
        case "NSFalsePredicate": return NSPredicate(value: false)
        case "NSCompoundPredicate":
            guard let rawType = try reader.integer("NSCompoundPredicateType", of: index),
                  let type = NSCompoundPredicate.LogicalType(rawValue: UInt(clamping: rawType)) else {
                throw KeyedArchiveError(description: "\(reader.describe(index)): bad NSCompoundPredicateType")
            }
            var subpredicates: [NSPredicate] = []
            for element in try reader.elements("NSSubpredicates", of: index) {
                subpredicates.append(try decodePredicate(element, in: reader, depth: depth + 1))
            }
            guard type != .not || subpredicates.count == 1 else {
                throw KeyedArchiveError(description: "\(reader.describe(index)): NOT needs exactly one subpredicate")
            }
            return NSCompoundPredicate(type: type, subpredicates: subpredicates)
        case "NSComparisonPredicate":
            let left = try decodeExpression(try reader.requiredReference("NSLeftExpression", of: index), in: reader, depth: depth + 1)
            let right = try decodeExpression(try reader.requiredReference("NSRightExpression", of: index), in: reader, depth: depth + 1)
            let operatorIndex = try reader.requiredReference("NSPredicateOperator", of: index)
            guard let rawType = try reader.integer("NSOperatorType", of: operatorIndex),
                  var type = NSComparisonPredicate.Operator(rawValue: UInt(clamping: rawType)) else {
                throw KeyedArchiveError(description: "\(reader.describe(operatorIndex)): bad NSOperatorType")
            }
            if type == .equalTo, try reader.bool("NSNegate", of: operatorIndex) { type = .notEqualTo }
            guard let modifier = NSComparisonPredicate.Modifier(rawValue: UInt(clamping: try reader.integer("NSModifier", of: operatorIndex) ?? 0)) else {
                throw KeyedArchiveError(description: "\(reader.describe(operatorIndex)): bad NSModifier")
            }
            let options = try reader.integer("NSOptions", of: operatorIndex)
            let flags = try reader.integer("NSFlags", of: operatorIndex)
            let rawOptions = options ?? flags ?? 0
            if type == .customSelector {
                guard let name = try reader.string("NSSelectorName", of: operatorIndex) else {
                    throw KeyedArchiveError(description: "\(reader.describe(operatorIndex)): NSSelectorName is missing")
                }
                return NSComparisonPredicate(leftExpression: left, rightExpression: right, customSelector: Selector(name))
            }
            return NSComparisonPredicate(leftExpression: left, rightExpression: right, modifier: modifier, type: type,
                                         options: NSComparisonPredicate.Options(rawValue: UInt(clamping: rawOptions) & 0x0F))
        default:
            throw KeyedArchiveError(description: "\(reader.describe(index)) is not a predicate")
        }
    }

    // MARK: Encoding

    private static let expressionClasses = ["NSExpression", "NSObject"]

    /// Encodes `expression` into `writer` and returns its reference.
    package static func encode(_ expression: NSExpression, into writer: inout KeyedArchiveWriter) throws(KeyedArchiveError) -> PropertyListObject {
        func object(_ className: String, _ type: Int, _ fields: [String: PropertyListObject], superclasses: [String] = []) -> PropertyListObject {
            var all = fields
            all["NSExpressionType"] = .integer(Int64(type))
            return writer.object(className: className, classes: [className] + superclasses + expressionClasses, fields: all)
        }
        switch expression.node {
        case .constant(let value):
            if value is PredicateUtilities {
                return object("NSConstantValueExpression", 0, ["NSConstantValueClassName": writer.string(predicateUtilitiesClassName)])
            }
            guard let value else { return object("NSConstantValueExpression", 0, [:]) }
            guard let encoded = writer.foundationValue(value) else {
                throw KeyedArchiveError(description: "the constant \(value) is not a Foundation value")
            }
            return object("NSConstantValueExpression", 0, ["NSConstantValue": encoded])
        case .evaluatedObject:
            return object("NSSelfExpression", 1, [:])
        case .variable(let name):
            return object("NSVariableExpression", 2, ["NSVariable": writer.string(name)])
        case .keyPath(let operand, let path):
            let isSelf: Bool
            if case .evaluatedObject = operand.node { isSelf = true } else { isSelf = false }
            let encodedOperand = try encode(operand, into: &writer)
            let specifier = object("NSKeyPathSpecifierExpression", 10, ["NSKeyPath": writer.string(path)])
            let arguments = writer.array([specifier], className: "NSMutableArray")
            // Apple: `valueForKey:` and type 3 for a single key on SELF; `valueForKeyPath:` and type 4 otherwise.
            let simple = isSelf && !path.contains(".")
            return object("NSKeyPathExpression", isSelf ? 3 : 4, [
                "NSOperand": encodedOperand,
                "NSSelectorName": writer.string(simple ? "valueForKey:" : "valueForKeyPath:"),
                "NSArguments": arguments,
            ], superclasses: ["NSFunctionExpression"])
        case .function(let target, let name, let arguments):
            let operand = try target.map { (target) throws(KeyedArchiveError) in try encode(target, into: &writer) }
                ?? object("NSConstantValueExpression", 0, ["NSConstantValueClassName": writer.string(predicateUtilitiesClassName)])
            var encodedArguments: [PropertyListObject] = []
            for argument in arguments { encodedArguments.append(try encode(argument, into: &writer)) }
            let list = writer.array(encodedArguments)
            return object("NSFunctionExpression", 4, ["NSOperand": operand, "NSSelectorName": writer.string(name), "NSArguments": list])
        case .union(let left, let right), .intersect(let left, let right), .minus(let left, let right):
            let type: Int
            switch expression.node {
            case .union: type = 5
            case .intersect: type = 6
            default: type = 7
            }
            let encodedLeft = try encode(left, into: &writer), encodedRight = try encode(right, into: &writer)
            return object("NSSetExpression", type, ["NSLeftExpression": encodedLeft, "NSRightExpression": encodedRight])
        case .subquery(let collection, let variable, let predicate):
            let encodedCollection = try encode(collection, into: &writer)
            let encodedVariable = object("NSVariableExpression", 2, ["NSVariable": writer.string(variable)])
            let encodedPredicate = try encode(predicate, into: &writer)
            return object("NSSubqueryExpression", 13, ["NSCollection": encodedCollection, "NSVariable": encodedVariable, "NSPredicate": encodedPredicate])
        case .aggregate(let elements):
            var encoded: [PropertyListObject] = []
            for element in elements { encoded.append(try encode(element, into: &writer)) }
            let list = writer.array(encoded)
            return object("NSAggregateExpression", 14, ["NSCollection": list])
        case .anyKey:
            return object("NSAnyKeyExpression", 15, [:])
        case .block:
            throw KeyedArchiveError(description: "block expressions cannot be archived")
        case .conditional(let predicate, let yes, let no):
            let encodedPredicate = try encode(predicate, into: &writer)
            let encodedYes = try encode(yes, into: &writer), encodedNo = try encode(no, into: &writer)
            return object("NSTernaryExpression", 20, ["NSPredicate": encodedPredicate, "NSTrueExpression": encodedYes, "NSFalseExpression": encodedNo])
        }
    }

    /// Encodes `predicate` into `writer` and returns its reference.
    package static func encode(_ predicate: NSPredicate, into writer: inout KeyedArchiveWriter) throws(KeyedArchiveError) -> PropertyListObject {
        let predicateClasses = ["NSPredicate", "NSObject"]
        switch predicate {
        case let comparison as NSComparisonPredicate:
            let left = try encode(comparison.leftExpression, into: &writer)
            let right = try encode(comparison.rightExpression, into: &writer)
            let operatorObject = encodeOperator(of: comparison, into: &writer)
            return writer.object(className: "NSComparisonPredicate", classes: ["NSComparisonPredicate"] + predicateClasses,
                                 fields: ["NSLeftExpression": left, "NSRightExpression": right, "NSPredicateOperator": operatorObject])
        case let compound as NSCompoundPredicate:
            var subpredicates: [PropertyListObject] = []
            for subpredicate in compound.predicates { subpredicates.append(try encode(subpredicate, into: &writer)) }
            let list = writer.array(subpredicates)
            return writer.object(className: "NSCompoundPredicate", classes: ["NSCompoundPredicate"] + predicateClasses,
                                 fields: ["NSCompoundPredicateType": .integer(Int64(compound.compoundPredicateType.rawValue)), "NSSubpredicates": list])
        default:
            switch predicate.kind {
            case .value(true): return writer.object(className: "NSTruePredicate", classes: ["NSTruePredicate"] + predicateClasses, fields: [:])
            case .value(false): return writer.object(className: "NSFalsePredicate", classes: ["NSFalsePredicate"] + predicateClasses, fields: [:])
            case .block: throw KeyedArchiveError(description: "block predicates cannot be archived")
            case .subclass: throw KeyedArchiveError(description: "predicates of class \(type(of: predicate)) cannot be archived")
            }
        }
    }

    private static func encodeOperator(of comparison: NSComparisonPredicate, into writer: inout KeyedArchiveWriter) -> PropertyListObject {
        let type = comparison.predicateOperatorType
        var fields: [String: PropertyListObject] = [
            "NSModifier": .integer(Int64(comparison.comparisonPredicateModifier.rawValue)),
            "NSOperatorType": .integer(Int64(type.rawValue)),
        ]
        let options = PropertyListObject.integer(Int64(comparison.options.rawValue))
        let className: String
        var superclasses = ["NSPredicateOperator", "NSObject"]
        switch type {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            className = "NSComparisonPredicateOperator"
            fields["NSVariant"] = .integer(Int64(type.rawValue))
            fields["NSOptions"] = options
        case .equalTo, .notEqualTo:
            className = "NSEqualityPredicateOperator"
            fields["NSNegate"] = .boolean(type == .notEqualTo)
            fields["NSOptions"] = options
        case .matches, .like, .beginsWith, .endsWith:
            className = ["NSMatchingPredicateOperator", "NSLikePredicateOperator", "NSBeginsWithPredicateOperator",
                         "NSEndsWithPredicateOperator"][Int(type.rawValue) - 6]
            superclasses.insert("NSStringPredicateOperator", at: 0)
            fields["NSFlags"] = options
        case .in, .contains:
            className = "NSInPredicateOperator"
            fields["NSFlags"] = options
        case .between:
            className = "NSBetweenPredicateOperator"
            fields["NSOptions"] = options
        case .customSelector:
            className = "NSCustomPredicateOperator"
            fields["NSSelectorName"] = writer.string(comparison.customSelector?.name ?? "")
        }
        return writer.object(className: className, classes: [className] + superclasses, fields: fields)
    }
}
