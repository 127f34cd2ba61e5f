import OpenSwiftDataMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Every SwiftData macro under the name it has in source, with the conformances the compiler would pass to the
/// extension roles of a type that declares none of them.
let swiftDataMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel", "Observable"]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Attribute": MacroSpec(type: AttributeMacro.self),
    "Relationship": MacroSpec(type: RelationshipMacro.self),
    "Transient": MacroSpec(type: TransientMacro.self),
    "Unique": MacroSpec(type: UniqueMacro.self),
    "Index": MacroSpec(type: IndexMacro.self),
    "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"]),
]

/// ``swiftDataMacros`` with `name` expanded by `spec` instead, e.g. `@Model` with other conformances.
func swiftDataMacros(replacing name: String, with spec: MacroSpec) -> [String: MacroSpec] {
    swiftDataMacros.merging([name: spec]) { _, new in new }
}

/// ``swiftDataMacros`` restricted to `names`, to see one macro's own output (e.g. `@Model` adding
/// `@_PersistedProperty` without that attribute being expanded in turn).
func swiftDataMacros(only names: Set<String>) -> [String: MacroSpec] {
    swiftDataMacros.filter { names.contains($0.key) }
}

/// Asserts that expanding the SwiftData macros in `source` produces `expandedSource`, exactly `diagnostics`, and —
/// when given — `fixedSource` after applying every fix-it.
///
/// Failures are recorded as Swift Testing issues at the caller's line (or, for a diagnostic that does not match, at
/// the line of its ``DiagnosticSpec``).
///
/// ```swift
/// assertExpansion(
///     "@Transient var cache = 0",
///     expandedSource: "var cache = 0"
/// )
/// ```
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    macros: [String: MacroSpec] = swiftDataMacros,
    fixedSource: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: macros,
        fixedSource: fixedSource,
        indentationWidth: .spaces(4),
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: Testing.SourceLocation(
                    fileID: failure.location.fileID,
                    filePath: failure.location.filePath,
                    line: failure.location.line,
                    column: failure.location.column
                )
            )
        },
        fileID: fileID,
        filePath: filePath,
        line: line,
        column: column
    )
}
