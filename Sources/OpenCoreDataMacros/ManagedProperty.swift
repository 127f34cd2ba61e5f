import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A property declaration that `@Managed` can turn into accessors, after its checks passed.
struct ManagedProperty {
    /// The key derived from the property's name (before an explicit key replaces it).
    let key: String
    /// Whether the name makes it a primitive accessor (`primitiveDate`).
    let isPrimitive: Bool

    /// Checks `variable`, reporting every problem; `nil` when there was at least one.
    init?(_ variable: VariableDeclSyntax, in context: some MacroExpansionContext) {
        var isValid = true
        func report(_ node: some SyntaxProtocol, _ message: ManagedDiagnostic, fixIt: FixIt? = nil) {
            context.diagnose(Diagnostic(node: node, message: message, fixIts: fixIt.map { [$0] } ?? []))
            isValid = false
        }

        guard let binding = variable.bindings.first else { return nil }
        // Swift and swift-syntax's expander reject an accessor macro on several bindings before calling
        // it; the check keeps the macro correct for any other host.
        if variable.bindings.count > 1 {
            report(variable.bindings, .multipleBindings)
            return nil
        }
        guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
            report(binding.pattern, .notAnIdentifier)
            return nil
        }
        let name = identifier.identifier.unescapedName

        for modifier in variable.modifiers {
            let word = modifier.name.text
            switch modifier.name.tokenKind {
            case .keyword(.static), .keyword(.class):
                report(modifier, .typeMember(name: name, modifier: word), fixIt: .removing(modifier))
            case .keyword(.lazy), .keyword(.weak), .keyword(.unowned):
                report(modifier, .storedOnlyModifier(name: name, modifier: word), fixIt: .removing(modifier))
            default:
                break
            }
        }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            let fixIt = FixIt(
                message: ManagedFixIt.useVar,
                changes: [
                    .replace(
                        oldNode: Syntax(variable.bindingSpecifier),
                        newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var)))
                    )
                ]
            )
            report(variable.bindingSpecifier, .letProperty(name: name), fixIt: fixIt)
        }
        if name == ManagedKey.primitivePrefix {
            report(identifier, .barePrimitive)
        }
        if binding.typeAnnotation == nil {
            report(identifier, .missingTypeAnnotation(name: name))
        }
        if let initializer = binding.initializer {
            let start = binding.typeAnnotation?.endPositionBeforeTrailingTrivia
                ?? binding.pattern.endPositionBeforeTrailingTrivia
            let fixIt = FixIt.removingText(
                start..<initializer.endPositionBeforeTrailingTrivia,
                in: binding,
                message: .removeInitialValue
            )
            report(initializer, .initialValue(name: name), fixIt: fixIt)
        }
        if let accessorBlock = binding.accessorBlock {
            report(accessorBlock, .existingAccessors(name: name))
        }
        guard isValid else { return nil }
        (key, isPrimitive) = ManagedKey.property(named: name)
    }
}
