import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Managed`: turns a property of an `NSManagedObject` subclass into accessors that go through the
/// object's managed object context, as `@NSManaged` does with the Objective-C runtime.
///
/// ```swift
/// @Managed var date: Date
/// // expands to
/// var date: Date {
///     get { _managedValue(forKey: "date") }
///     set { _setManagedValue(newValue, forKey: "date") }
/// }
///
/// @Managed var primitiveDate: Date
/// // expands to
/// var primitiveDate: Date {
///     get { _managedPrimitiveValue(forKey: "date") }
///     set { _setManagedPrimitiveValue(newValue, forKey: "date") }
/// }
/// ```
///
/// `@Managed("remote_id")` uses the given key instead of the property name. The key rules are in
/// ``ManagedKey``. The property keeps its attributes, modifiers and type: an accessor macro only adds
/// accessors, so `public`, `private(set)`, `override` and `@available` work as written.
public struct ManagedMacro: AccessorMacro {
    /// The macro's name as written in source, for diagnostics.
    static let name = "Managed"

    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: declaration, message: ManagedDiagnostic.notAProperty))
            return []
        }
        guard EnclosingClassCheck.validate(variable, attribute: node, macro: name, in: context) else {
            return []
        }
        guard let property = ManagedProperty(variable, in: context) else {
            return []
        }
        switch ManagedKey.argument(of: node, macro: name, in: context) {
        case .absent: return accessors(forKey: property.key, primitive: property.isPrimitive)
        case .key(let explicitKey): return accessors(forKey: explicitKey, primitive: property.isPrimitive)
        case .invalid: return []
        }
    }

    /// The getter and setter for `key`, through the primitive entry points when `primitive` is `true`.
    static func accessors(forKey key: String, primitive: Bool) -> [AccessorDeclSyntax] {
        let literal = ManagedKey.literal(key)
        if primitive {
            return [
                "get { _managedPrimitiveValue(forKey: \(literal)) }",
                "set { _setManagedPrimitiveValue(newValue, forKey: \(literal)) }",
            ]
        }
        return [
            "get { _managedValue(forKey: \(literal)) }",
            "set { _setManagedValue(newValue, forKey: \(literal)) }",
        ]
    }
}
