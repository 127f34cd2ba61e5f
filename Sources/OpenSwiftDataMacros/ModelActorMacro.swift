import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor`: makes an actor run on its own model context, as Apple's `@ModelActor` does.
///
/// ```swift
/// @ModelActor actor Importer {
///     func importTrips() throws { … modelContext.insert(trip) … }
/// }
/// let importer = Importer(modelContainer: container)
/// ```
///
/// - member: the executor and the container, and `init(modelContainer:)`, which makes a context for the container
///   and an executor that runs the actor on it.
/// - extension: the `ModelActor` conformance, unless the actor declares it.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: SwiftDataDiagnostic.modelActorNotOnActor))
            return []
        }
        // A public (or package) actor's members are as visible as it is: the conformance requires it, and other
        // modules make the actor with `init(modelContainer:)`.
        let access = declaration.modifiers.first { ["public", "open", "package"].contains($0.name.text) }
            .map { $0.name.text == "package" ? "package " : "public " } ?? ""
        return [
            "\(raw: access)nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor",
            "\(raw: access)nonisolated let modelContainer: OpenSwiftData.ModelContainer",
            """
            \(raw: access)init(modelContainer: OpenSwiftData.ModelContainer) {
                let modelContext = OpenSwiftData.ModelContext(modelContainer)
                self.modelExecutor = OpenSwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        // A declaration that is not an actor is reported once, by the member role.
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return ConformanceExtension.declarations(extending: type, conformingTo: protocols)
    }
}
