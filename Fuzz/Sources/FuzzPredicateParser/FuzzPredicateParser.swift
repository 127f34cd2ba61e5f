import CFuzzDriver
import Foundation
import FuzzSupport
import OpenCoreData

// Feeds the input, as a UTF-8 string, to the predicate and expression parsers (`init(validatingFormat:)`); a format
// that parses is printed (`predicateFormat` / `description`), re-parsed, and evaluated against a small dictionary.
// Every failure must be a thrown error; a trap is a bug.

/// Positional arguments for `%@`, `%K`, `%d`, `%f` in the fuzzed format.
nonisolated(unsafe) let arguments: [Any] = ["name", 42, 2.5, "child.name", ["a", "b"], NSNumber(value: true), "Bob"]

/// The object predicates are evaluated against: strings, numbers, a date, a collection and a nested object.
nonisolated(unsafe) let object: [String: Any] = [
    "name": "Alice", "age": 31, "score": 2.5, "flag": true, "tags": ["a", "b", "c"],
    "numbers": [1, 2, 3], "date": Date(timeIntervalSinceReferenceDate: 0),
    "child": ["name": "Bob", "age": 4, "tags": ["x"]] as [String: Any],
    "children": [["name": "Carl", "age": 2], ["name": "Dana", "age": 7]] as [[String: Any]],
]

/// Values for `$VARIABLE` substitution.
nonisolated(unsafe) let variables: [String: Any] = ["X": 1, "NAME": "Alice", "LIST": [1, 2]]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let format = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    if let predicate = try? NSPredicate(validatingFormat: format, argumentArray: arguments) {
        _ = try? predicate.evaluateThrowing(with: object, substitutionVariables: variables)
        let printed = predicate.predicateFormat
        if let reparsed = try? NSPredicate(validatingFormat: printed, argumentArray: nil) {
            _ = reparsed.predicateFormat
            _ = try? reparsed.evaluateThrowing(with: object, substitutionVariables: variables)
        }
    }
    if let expression = try? NSExpression(validatingFormat: format, argumentArray: arguments) {
        _ = try? expression.expressionValueThrowing(with: object, context: NSMutableDictionary(dictionary: variables))
        let printed = expression.description
        if let reparsed = try? NSExpression(validatingFormat: printed, argumentArray: nil) {
            _ = reparsed.description
        }
    }
    return 0
}

/// The process entry point SwiftPM links as `main` (see CFuzzDriver): runs libFuzzer with this file's target.
@_cdecl("FuzzPredicateParser_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    opencoredata_fuzz_main(argc, argv)
}
