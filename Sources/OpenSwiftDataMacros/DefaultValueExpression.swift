import SwiftSyntax

/// The `defaultValue:` argument that `@Model` writes into a property's schema metadata.
///
/// It is the property's initial value, coerced to the annotated type so that a literal gets the property's type
/// (`[]` is no `[Stop]` by itself). The value is parenthesized unless it is a single postfix expression or
/// literal, which `as` cannot split:
///
/// ```swift
/// var code: String = ""          // "" as String
/// var stops: [Stop] = []         // [] as [Stop]
/// var count = 0                  // 0
/// var total: Int = a + b         // (a + b) as Int
/// var note: String! = nil        // nil as String?    ('!' is not allowed after 'as')
/// var name: String               // nil               (no initial value)
/// var size: Int = if big { 2 } else { 1 }   // { () -> Int in if big { 2 } else { 1 } }()
/// ```
enum DefaultValueExpression {
    /// The argument for `property`, as source text.
    static func argument(for property: PersistedProperty) -> String {
        guard let value = property.initialValue else { return "nil" }
        let isStatementExpression = value.is(IfExprSyntax.self) || value.is(SwitchExprSyntax.self)
        guard let type = property.type else {
            // `if` and `switch` expressions are only allowed as a whole initial value or a closure's result.
            return isStatementExpression ? "{ \(value.trimmedDescription) }()" : value.trimmedDescription
        }
        let coercedType = coercionType(type).trimmedDescription
        if isStatementExpression {
            return "{ () -> \(coercedType) in \(value.trimmedDescription) }()"
        }
        if needsParentheses(value) {
            return "(\(value.trimmedDescription)) as \(coercedType)"
        }
        return "\(value.trimmedDescription) as \(coercedType)"
    }

    /// `type` as it may be written after `as`: an implicitly unwrapped optional becomes an optional.
    private static func coercionType(_ type: TypeSyntax) -> TypeSyntax {
        guard let implicitlyUnwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) else { return type }
        return TypeSyntax(OptionalTypeSyntax(wrappedType: implicitlyUnwrapped.wrappedType.trimmed))
    }

    /// Whether `value` must be parenthesized before `as`: anything but a literal or a postfix expression.
    private static func needsParentheses(_ value: ExprSyntax) -> Bool {
        let single: [any ExprSyntaxProtocol.Type] = [
            StringLiteralExprSyntax.self, IntegerLiteralExprSyntax.self, FloatLiteralExprSyntax.self,
            BooleanLiteralExprSyntax.self, NilLiteralExprSyntax.self, ArrayExprSyntax.self, DictionaryExprSyntax.self,
            DeclReferenceExprSyntax.self, MemberAccessExprSyntax.self, FunctionCallExprSyntax.self,
            SubscriptCallExprSyntax.self, TupleExprSyntax.self, PrefixOperatorExprSyntax.self,
            ForceUnwrapExprSyntax.self,
        ]
        return !single.contains { value.is($0) }
    }
}
