import OpenCoreDataMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Asserts that expanding `@Managed` and `@ManagedRelationshipAccessor` in `source` produces
/// `expandedSource`, exactly `diagnostics`, and — when given — `fixedSource` after applying every fix-it.
///
/// Failures are recorded as Swift Testing issues at the caller's line (or, for a diagnostic that
/// does not match, at the line of its ``DiagnosticSpec``).
///
/// For example:
///
/// ```swift
/// assertExpansion(
///     "class A { @Managed var x: Int }",
///     expandedSource: "class A { var x: Int { … } }"
/// )
/// ```
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
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
        macroSpecs: [
            "Managed": MacroSpec(type: ManagedMacro.self),
            "ManagedRelationshipAccessor": MacroSpec(type: ManagedRelationshipAccessorMacro.self),
        ],
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
