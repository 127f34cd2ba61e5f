import SwiftDiagnostics
import SwiftSyntax

/// A property of a `@Model` class that the store persists, and the rule that picks them.
///
/// Persisted are the instance stored `var`s of the class body that are not `lazy`, not `@Transient` and whose
/// name does not start with `_$` (the macros' own storage):
///
/// ```swift
/// @Model final class Trip {
///     var name: String                       // persisted
///     var count = 0                          // persisted
///     @Transient var cache: [String] = []    // not: @Transient
///     var title: String { name }             // not: computed
///     static var shared: Trip?               // not: a type property
///     let id: UUID                           // error: use 'var'
/// }
/// ```
struct PersistedProperty {
    /// The declaration.
    let variable: VariableDeclSyntax
    /// The name token in the declaration (its `text` has backquotes if written with them, `` `default` ``: what key
    /// paths use).
    let identifier: TokenSyntax
    /// The type annotation, when there is one.
    let type: TypeSyntax?
    /// The initial value, when there is one.
    let initialValue: ExprSyntax?

    /// The property's name as the schema sees it, without backquotes.
    var name: String {
        identifier.identifier?.name ?? identifier.text
    }

    /// The name of the placeholder stored property that `@_PersistedProperty` adds (`_name`).
    var storageName: String {
        "_" + name
    }

    /// What the rule makes of one variable declaration of a class body.
    enum Classification {
        /// Persisted: `@Model` adds `@_PersistedProperty` to it and lists it in the schema.
        case persisted(PersistedProperty)
        /// Left alone: a type property, computed, `lazy`, `@Transient` or the macros' own storage.
        case ignored
        /// Not allowed in a `@Model` class; the diagnostics say why.
        case rejected([Diagnostic])
    }

    /// Applies the rule to `variable`, a member of a `@Model` class.
    static func classify(_ variable: VariableDeclSyntax) -> Classification {
        if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }) {
            return .ignored
        }
        if SchemaMarker.transient.isPresent(in: variable.attributes) {
            return .ignored
        }
        if variable.bindings.contains(where: { isMacroStorage($0.pattern) || isComputed($0) }) {
            return .ignored
        }
        if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.lazy) }) {
            return .ignored
        }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            let fixIt = FixIt(
                message: SwiftDataFixIt.useVar,
                changes: [
                    .replace(
                        oldNode: Syntax(variable.bindingSpecifier),
                        newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var)))
                    )
                ]
            )
            let diagnostic = Diagnostic(node: variable.bindingSpecifier, message: SwiftDataDiagnostic.letProperty, fixIts: [fixIt])
            return .rejected([diagnostic])
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first else {
            return .rejected([Diagnostic(node: variable.bindings, message: SwiftDataDiagnostic.multipleBindings)])
        }
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
            return .rejected([Diagnostic(node: binding.pattern, message: SwiftDataDiagnostic.tuplePattern)])
        }
        var diagnostics: [Diagnostic] = []
        if let accessorBlock = binding.accessorBlock {
            diagnostics.append(Diagnostic(node: accessorBlock, message: SwiftDataDiagnostic.observers))
        }
        for modifier in variable.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.weak), .keyword(.unowned):
                let message = SwiftDataDiagnostic.referenceOwnership(modifier: modifier.trimmedDescription)
                diagnostics.append(Diagnostic(node: modifier, message: message))
            default:
                break
            }
        }
        guard diagnostics.isEmpty else { return .rejected(diagnostics) }
        return .persisted(
            PersistedProperty(
                variable: variable,
                identifier: pattern.identifier,
                type: binding.typeAnnotation?.type.trimmed,
                initialValue: binding.initializer?.value.trimmed
            )
        )
    }

    /// Whether `pattern` names the macros' own storage (`_$backingData`, `_$observationRegistrar`).
    private static func isMacroStorage(_ pattern: PatternSyntax) -> Bool {
        guard let identifier = pattern.as(IdentifierPatternSyntax.self)?.identifier else { return false }
        return (identifier.identifier?.name ?? identifier.text).hasPrefix("_$")
    }

    /// Whether `binding` is computed: a getter body, or accessors other than `willSet` / `didSet`.
    private static func isComputed(_ binding: PatternBindingSyntax) -> Bool {
        switch binding.accessorBlock?.accessors {
        case nil:
            return false
        case .getter:
            return true
        case .accessors(let accessors):
            return accessors.contains { accessor in
                accessor.accessorSpecifier.tokenKind != .keyword(.willSet)
                    && accessor.accessorSpecifier.tokenKind != .keyword(.didSet)
            }
        }
    }
}
