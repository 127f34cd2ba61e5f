import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacros

/// The rules that turn a declaration's name (or the macro's argument) into the model key it accesses.
///
/// The rules mirror how Core Data resolves `@NSManaged` declarations at run time, where the key is
/// read from the Objective-C selector:
///
/// - A property accesses the key spelled like the property: `var date: Date` → `"date"`.
/// - A property whose name is `primitive` followed by an upper-case letter is a *primitive accessor*:
///   the key is the rest of the name with **only its first character** lower-cased, which inverts
///   key-value coding's `primitive` + capitalized-key convention: `primitiveDate` → `"date"`,
///   `primitiveURLString` → `"uRLString"` (the key whose primitive accessor KVC calls
///   `primitiveURLString`). A name such as `primitiveness` (lower-case after `primitive`) is an
///   ordinary property whose key is `"primitiveness"`.
/// - A relationship accessor method names its relationship after a fixed prefix, again with only the
///   first character lower-cased: `addToMoods` → `"moods"`, `insertIntoLineItems` → `"lineItems"`.
/// - An explicit key, `@Managed("remote_id")`, replaces the derived key (an extension beyond Apple,
///   for model names that are not Swift identifiers or do not follow the conventions). On a primitive
///   accessor it names the key whose primitive value is accessed.
enum ManagedKey {
    /// The prefix that marks a primitive accessor property.
    static let primitivePrefix = "primitive"

    /// Lower-cases the first character of `name` and keeps the rest as written.
    ///
    /// For example: `"Moods"` → `"moods"`, `"URLString"` → `"uRLString"`.
    static func lowercasingFirstCharacter(_ name: Substring) -> String {
        guard let first = name.first else { return "" }
        return first.lowercased() + name.dropFirst()
    }

    /// Whether `name` continues with a capitalized key after `prefix`, as in `addToMoods` after `addTo`.
    ///
    /// Returns the part after the prefix, or `nil` when the name does not have that form.
    static func suffix(of name: String, after prefix: String) -> Substring? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard let first = rest.first, first.isUppercase else { return nil }
        return rest
    }

    /// The key and kind of access for a property called `name` (without backticks).
    ///
    /// For example: `"date"` → (`"date"`, primitive: false); `"primitiveDate"` → (`"date"`, primitive: true).
    static func property(named name: String) -> (key: String, isPrimitive: Bool) {
        if let rest = suffix(of: name, after: primitivePrefix) {
            return (lowercasingFirstCharacter(rest), true)
        }
        return (name, false)
    }

    /// The result of reading the macro's optional argument.
    enum Argument: Equatable {
        /// `@Managed` without an argument.
        case absent
        /// `@Managed("key")`.
        case key(String)
        /// An argument that is not a usable key; a diagnostic has been emitted.
        case invalid
    }

    /// Reads the explicit key in `@Macro("key")`, reporting an argument that is not a non-empty string literal.
    static func argument(
        of attribute: AttributeSyntax,
        macro: String,
        in context: some MacroExpansionContext
    ) -> Argument {
        guard case .argumentList(let arguments) = attribute.arguments, let argument = arguments.first else {
            return .absent
        }
        guard let literal = argument.expression.as(StringLiteralExprSyntax.self),
            let key = literal.representedLiteralValue
        else {
            context.diagnose(Diagnostic(node: argument.expression, message: ManagedDiagnostic.keyNotALiteral(macro: macro)))
            return .invalid
        }
        guard !key.isEmpty else {
            context.diagnose(Diagnostic(node: argument.expression, message: ManagedDiagnostic.emptyKey(macro: macro)))
            return .invalid
        }
        return .key(key)
    }

    /// A string literal expression for `key`, escaped as needed.
    static func literal(_ key: String) -> StringLiteralExprSyntax {
        StringLiteralExprSyntax(content: key)
    }
}

extension TokenSyntax {
    /// The identifier as the model sees it: `` `default` `` → `default`.
    var unescapedName: String {
        identifier?.name ?? text
    }
}
