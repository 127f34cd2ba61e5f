import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@ManagedRelationshipAccessor`: writes the body of a to-many relationship accessor method declared
/// without one, as `@NSManaged` does for the methods in Xcode's `+CoreDataProperties.swift` files.
///
/// ```swift
/// @ManagedRelationshipAccessor public func addToMoods(_ value: Mood)
/// // gets the body
/// { _addManagedObject(value, toRelationship: "moods") }
/// ```
///
/// The relationship is named by the method (see ``ManagedKey``), or by the macro's argument:
/// `@ManagedRelationshipAccessor("line_items") func addToLineItems(_ value: LineItem)`. The supported
/// signatures and the entry point each one calls are listed in ``RelationshipAccessorShape``.
///
/// This is a separate macro from ``ManagedMacro`` because Swift 6.3 rejects a macro whose roles do not
/// all fit the declaration it is attached to: one macro with both the `accessor` and the `body` role
/// fails on every property ("'body' macro cannot be attached to property") and on every method, and
/// overloads are chosen by their arguments, never by the declaration.
public struct ManagedRelationshipAccessorMacro: BodyMacro {
    /// The macro's name as written in source, for diagnostics.
    static let name = "ManagedRelationshipAccessor"

    public static func expansion(
        of node: AttributeSyntax,
        providingBodyFor declaration: some DeclSyntaxProtocol & WithOptionalCodeBlockSyntax,
        in context: some MacroExpansionContext
    ) throws -> [CodeBlockItemSyntax] {
        guard let function = declaration.as(FunctionDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ManagedDiagnostic.notAMethod))
            return []
        }
        guard EnclosingClassCheck.validate(function, attribute: node, macro: name, in: context) else {
            return []
        }
        var isValid = true
        for modifier in function.modifiers {
            if modifier.name.tokenKind == .keyword(.static) || modifier.name.tokenKind == .keyword(.class) {
                let message = ManagedDiagnostic.typeMember(name: function.name.text, modifier: modifier.name.text)
                context.diagnose(Diagnostic(node: modifier, message: message, fixIts: [.removing(modifier)]))
                isValid = false
            }
        }
        if let body = function.body {
            let end = function.genericWhereClause.map(Syntax.init) ?? Syntax(function.signature)
            let fixIt = FixIt.removingText(
                end.endPositionBeforeTrailingTrivia..<body.endPositionBeforeTrailingTrivia,
                in: function,
                message: .removeBody
            )
            let message = ManagedDiagnostic.methodHasBody(name: function.name.text)
            context.diagnose(Diagnostic(node: body, message: message, fixIts: [fixIt]))
            isValid = false
        }
        let explicitKey: String?
        switch ManagedKey.argument(of: node, macro: name, in: context) {
        case .absent: explicitKey = nil
        case .key(let key): explicitKey = key
        case .invalid: return []
        }
        guard isValid, let call = relationshipCall(for: function, explicitKey: explicitKey, in: context) else {
            return []
        }
        return [call]
    }

    /// The one statement of the generated body, or `nil` after reporting why the method fits no shape.
    ///
    /// - parameter explicitKey: The macro's argument, which replaces the key derived from the name.
    private static func relationshipCall(
        for function: FunctionDeclSyntax,
        explicitKey: String?,
        in context: some MacroExpansionContext
    ) -> CodeBlockItemSyntax? {
        let name = function.name.unescapedName
        let match = RelationshipAccessorShape.prefixes.lazy.compactMap { prefix in
            ManagedKey.suffix(of: name, after: prefix).map { (prefix: prefix, suffix: $0) }
        }.first
        guard let (prefix, suffix) = match else {
            let shapes = RelationshipAccessorShape.all.map { $0.signature(forSuffix: nil) }
            let message = ManagedDiagnostic.unknownAccessorName(name: name, shapes: shapes)
            context.diagnose(Diagnostic(node: function.name, message: message))
            return nil
        }

        let parameters = function.signature.parameterClause.parameters
        let actual = parameters.map { parameter in
            let label = parameter.firstName.tokenKind == .wildcard ? nil : parameter.firstName.text
            return (label: label, kind: RelationshipParameterKind(parameter))
        }
        let candidates = RelationshipAccessorShape.all.filter { $0.prefix == prefix }
        guard !returnsValue(function), let shape = candidates.first(where: { $0.matches(actual) }) else {
            let message = ManagedDiagnostic.unsupportedShape(
                signature: name + function.signature.trimmedDescription,
                shapes: candidates.map { $0.signature(forSuffix: suffix) }
            )
            context.diagnose(Diagnostic(node: function.name, message: message))
            return nil
        }

        let internalNames = parameters.map { $0.secondName ?? $0.firstName }
        if let unnamed = internalNames.first(where: { $0.tokenKind == .wildcard }) {
            context.diagnose(Diagnostic(node: unnamed, message: ManagedDiagnostic.unnamedParameter(function: name)))
            return nil
        }
        let key = explicitKey ?? ManagedKey.lowercasingFirstCharacter(suffix)
        return shape.call(forwarding: internalNames, key: key)
    }

    /// Whether `function` declares a result other than `Void` / `()`.
    private static func returnsValue(_ function: FunctionDeclSyntax) -> Bool {
        guard let type = function.signature.returnClause?.type else { return false }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Void" {
            return false
        }
        if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.isEmpty {
            return false
        }
        return true
    }
}
