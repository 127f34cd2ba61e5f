import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute(…)`: marks a persisted property's schema options. It expands to nothing; `@Model` reads it and writes
/// `OpenSwiftData.Schema.Attribute(…)` with the same arguments into the property's schema metadata.
///
/// ```swift
/// @Attribute(.unique, originalName: "c") var code: String
/// ```
public struct AttributeMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        SchemaMarkerCheck.validate(node, on: declaration, marker: .attribute, in: context)
        return []
    }
}

/// `@Relationship(…)`: marks a relationship's delete rule, inverse and other options. It expands to nothing; `@Model`
/// reads it and writes `OpenSwiftData.Schema.Relationship(…)` with the same arguments into the schema metadata.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
/// ```
///
/// Whether the property's type is a model (or an optional model, or an array of models) is checked at run time.
public struct RelationshipMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard SchemaMarkerCheck.validate(node, on: declaration, marker: .relationship, in: context),
            let variable = declaration.as(VariableDeclSyntax.self),
            let attribute = SchemaMarker.attribute.occurrences(in: variable.attributes).first
        else { return [] }
        // Reported here only, so that a property with both markers gets one error.
        context.diagnose(Diagnostic(node: attribute, message: SwiftDataDiagnostic.attributeAndRelationship))
        return []
    }
}

/// `@Transient`: keeps a stored property out of the store. It expands to nothing; `@Model` leaves the property
/// as it is written (it needs an initial value, as every stored property that `init(backingData:)` does not set).
///
/// ```swift
/// @Transient var isExpanded = false
/// ```
public struct TransientMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        SchemaMarkerCheck.validate(node, on: declaration, marker: .transient, in: context)
        return []
    }
}

/// The placement check shared by the marker macros.
enum SchemaMarkerCheck {
    /// Reports and returns `false` when `declaration` is not a property.
    @discardableResult
    static func validate(
        _ node: AttributeSyntax,
        on declaration: some DeclSyntaxProtocol,
        marker: SchemaMarker,
        in context: some MacroExpansionContext
    ) -> Bool {
        guard declaration.is(VariableDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: SwiftDataDiagnostic.markerNotOnProperty(macro: marker.rawValue)))
            return false
        }
        return true
    }
}
