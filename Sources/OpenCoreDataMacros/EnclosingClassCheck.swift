import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Checks that a managed declaration sits where its expansion can work: directly in a class or in an
/// extension.
///
/// The expansions call methods of `NSManagedObject` on `self`, so they only make sense in a subclass
/// of it. A macro cannot see the superclass of an extended type, so any class or extension is
/// accepted and the compiler reports the rest (an extension of a struct fails to find
/// `_managedValue(forKey:)`). Structs, enums, actors, protocols, local scopes and top-level code
/// are rejected here with a clearer message.
enum EnclosingClassCheck {
    /// Reports and returns `false` when `declaration` is not a member of a class or an extension.
    ///
    /// - parameter lexicalContext: The expansion context's lexical context, innermost first.
    /// - parameter declaration: The declaration the macro is attached to. Some compilers list a
    ///   function itself as the innermost context of its body macro, so it is skipped.
    static func validate(
        _ declaration: some DeclSyntaxProtocol,
        attribute: AttributeSyntax,
        macro: String,
        in context: some MacroExpansionContext
    ) -> Bool {
        guard let place = misplacement(of: declaration, in: context.lexicalContext) else { return true }
        context.diagnose(Diagnostic(node: attribute, message: ManagedDiagnostic.notInClass(macro: macro, context: place)))
        return false
    }

    /// A description of where `declaration` is, when that is not a class or an extension.
    private static func misplacement(of declaration: some DeclSyntaxProtocol, in lexicalContext: [Syntax]) -> String? {
        for scope in lexicalContext {
            if scope.is(PatternBindingSyntax.self) || isSameFunction(scope, as: declaration) {
                continue
            }
            if scope.is(ClassDeclSyntax.self) || scope.is(ExtensionDeclSyntax.self) {
                return nil
            }
            if let type = scope.as(StructDeclSyntax.self) {
                return "struct '\(type.name.text)'"
            }
            if let type = scope.as(EnumDeclSyntax.self) {
                return "enum '\(type.name.text)'"
            }
            if let type = scope.as(ActorDeclSyntax.self) {
                return "actor '\(type.name.text)'"
            }
            if let type = scope.as(ProtocolDeclSyntax.self) {
                return "protocol '\(type.name.text)'"
            }
            return "a local scope"
        }
        return "top-level code"
    }

    /// Whether `scope` is the function the macro is attached to (its body stripped, as lexical contexts are).
    private static func isSameFunction(_ scope: Syntax, as declaration: some DeclSyntaxProtocol) -> Bool {
        guard let scopeFunction = scope.as(FunctionDeclSyntax.self),
            let function = declaration.as(FunctionDeclSyntax.self)
        else { return false }
        return scopeFunction.name.text == function.name.text
            && scopeFunction.signature.trimmedDescription == function.signature.trimmedDescription
    }
}
