import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty`: what `@Model` attaches to each persisted property, turning it into accessors over the
/// model's backing data that report accesses and changes to its observation registrar.
///
/// ```swift
/// @_PersistedProperty var name: String
/// // expands to
/// var name: String {
///     @storageRestrictions(accesses: _$backingData, initializes: _name)
///     init(initialValue) {
///         _$backingData.setValue(forKey: \.name, to: initialValue)
///         _name = OpenSwiftData._SwiftDataNoType()
///     }
///     get {
///         _$observationRegistrar.access(self, keyPath: \.name)
///         return self.getValue(forKey: \.name)
///     }
///     set {
///         _$observationRegistrar.withMutation(of: self, keyPath: \.name) {
///             self.setValue(forKey: \.name, to: newValue)
///         }
///     }
/// }
/// @OpenSwiftData.Transient private var _name: OpenSwiftData._SwiftDataNoType
/// ```
///
/// The init accessor lets the class's own initializers assign the property (`self.name = name`) and a default
/// value (`var count = 0`) go to the backing data; the placeholder `_name` is the storage it initializes.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let property = property(of: declaration) else {
            context.diagnose(Diagnostic(node: node, message: SwiftDataDiagnostic.persistedPropertyMisplaced))
            return []
        }
        let keyPath = "\\.\(property.identifier.text)"
        return [
            """
            @storageRestrictions(accesses: _$backingData, initializes: \(raw: property.storageName))
            init(initialValue) {
                _$backingData.setValue(forKey: \(raw: keyPath), to: initialValue)
                \(raw: property.storageName) = OpenSwiftData._SwiftDataNoType()
            }
            """,
            """
            get {
                _$observationRegistrar.access(self, keyPath: \(raw: keyPath))
                return self.getValue(forKey: \(raw: keyPath))
            }
            """,
            """
            set {
                _$observationRegistrar.withMutation(of: self, keyPath: \(raw: keyPath)) {
                    self.setValue(forKey: \(raw: keyPath), to: newValue)
                }
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        // A misplaced attribute is reported once, by the accessor role.
        guard let property = property(of: declaration) else { return [] }
        return ["@OpenSwiftData.Transient private var \(raw: property.storageName): OpenSwiftData._SwiftDataNoType"]
    }

    /// `declaration` as a property the macro can expand: a single stored `var` with a simple name and no accessors.
    private static func property(of declaration: some DeclSyntaxProtocol) -> PersistedProperty? {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            variable.bindingSpecifier.tokenKind == .keyword(.var),
            variable.bindings.count == 1, let binding = variable.bindings.first,
            binding.accessorBlock == nil,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        return PersistedProperty(
            variable: variable,
            identifier: pattern.identifier,
            type: binding.typeAnnotation?.type.trimmed,
            initialValue: binding.initializer?.value.trimmed
        )
    }
}
