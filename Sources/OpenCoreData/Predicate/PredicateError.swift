import Foundation

/// The `userInfo` keys of the errors that the predicate layer throws.
///
/// Every error thrown by ``NSPredicate/init(validatingFormat:argumentArray:)``,
/// ``NSExpression/init(validatingFormat:argumentArray:)``, ``NSPredicate/evaluateThrowing(with:substitutionVariables:)``
/// and ``NSExpression/expressionValueThrowing(with:context:)`` is an `NSError` in `NSCocoaErrorDomain` with code
/// `NSFormattingError` (2048). `localizedDescription` is a complete sentence; these keys carry the parts:
///
/// ```swift
/// do {
///     _ = try NSPredicate(validatingFormat: "name == 'Ben", argumentArray: nil)
/// } catch let error as NSError {
///     error.userInfo[PredicateErrorKey.offset] as? Int   // 8
///     error.userInfo[PredicateErrorKey.phase] as? String  // "parse"
/// }
/// ```
public enum PredicateErrorKey {
    /// `"parse"` for a malformed format string, `"evaluate"` for a failure while evaluating.
    public static let phase = "OpenCoreDataPredicatePhase"
    /// The offset, in Unicode scalars from 0, in the format string where parsing failed (`Int`).
    public static let offset = "OpenCoreDataPredicateOffset"
    /// The text of the token found at ``offset`` (`String`; `"end of input"` at the end).
    public static let token = "OpenCoreDataPredicateToken"
    /// What the parser expected at ``offset`` (`String`).
    public static let expected = "OpenCoreDataPredicateExpected"
    /// The complete format string that failed to parse (`String`).
    public static let format = "OpenCoreDataPredicateFormat"
}

/// Builders for the predicate layer's `NSError`s (see ``PredicateErrorKey``).
package enum PredicateError {
    /// The error code of every predicate error: Cocoa's `NSFormattingError`.
    package static let code = 2048

    package static func parse(_ message: String, format: String, offset: Int, token: String, expected: String?) -> NSError {
        var description = "Unable to parse the format string \"\(format)\": \(message) at offset \(offset) (found \(token))"
        if let expected { description += "; expected \(expected)" }
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: description,
            NSDebugDescriptionErrorKey: description,
            PredicateErrorKey.phase: "parse",
            PredicateErrorKey.offset: offset,
            PredicateErrorKey.token: token,
            PredicateErrorKey.format: format,
        ]
        if let expected { info[PredicateErrorKey.expected] = expected }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }

    package static func evaluation(_ message: String) -> NSError {
        let description = "Unable to evaluate: \(message)"
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: [
            NSLocalizedDescriptionKey: description,
            NSDebugDescriptionErrorKey: description,
            PredicateErrorKey.phase: "evaluate",
        ])
    }

    /// The message that the non-throwing Apple forms stop the program with.
    package static func message(of error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}
