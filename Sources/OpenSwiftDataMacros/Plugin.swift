import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides OpenSwiftData's macros (SwiftData's `@Model`, `@Attribute`, `@Relationship`,
/// `@Transient`, `#Unique`, `#Index` and `@ModelActor`).
@main
struct OpenSwiftDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ModelMacro.self,
        PersistedPropertyMacro.self,
        AttributeMacro.self,
        RelationshipMacro.self,
        TransientMacro.self,
        UniqueMacro.self,
        IndexMacro.self,
        ModelActorMacro.self,
    ]
}
