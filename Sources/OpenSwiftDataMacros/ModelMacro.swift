import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a class a SwiftData model, as Apple's `@Model` does.
///
/// ```swift
/// @Model final class Trip {
///     var name: String
///     @Attribute(.unique) var code: String = ""
///     init(name: String) { self.name = name }
/// }
/// ```
///
/// - memberAttribute: `@_PersistedProperty` on each persisted property (the rule is ``PersistedProperty``), which
///   turns it into accessors over the backing data.
/// - member: the backing data storage, `persistentBackingData`, `schemaMetadata` (one
///   `Schema.PropertyMetadata` per persisted property, in declaration order), `init(backingData:)` and the
///   observation registrar. A member the class declares itself is not added again. A class that is not `final`
///   gets its metadata as an overridable class property built by `_$schemaMetadata(rootedAt:)`, and a model that
///   inherits from another (``ModelMembers/inheritableMembers(superclass:)``) overrides it, keeps the values its
///   initializer sets before `super.init` in storage of its own and hands them over on first use.
/// - extension: the conformances the class does not declare yet (`PersistentModel`, `Observable`).
///
/// Every problem is reported by the member role (the others stay silent, so each is reported once).
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let modelClass = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: SwiftDataDiagnostic.modelNotOnClass))
            return []
        }
        if let genericParameters = modelClass.genericParameterClause {
            let message = SwiftDataDiagnostic.genericModel(className: modelClass.name.trimmedDescription)
            context.diagnose(Diagnostic(node: genericParameters, message: message))
            return []
        }
        var properties: [PersistedProperty] = []
        for member in modelClass.memberBlock.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                switch PersistedProperty.classify(variable) {
                case .persisted(let property): properties.append(property)
                case .ignored: break
                case .rejected(let diagnostics): diagnostics.forEach(context.diagnose)
                }
            } else if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
                diagnoseConditionalProperties(in: conditional, in: context)
            }
        }
        let members = ModelMembers(className: modelClass.name.trimmedDescription, properties: properties)
        let declared = DeclaredMembers(modelClass.memberBlock)
        let superclass = modelSuperclass(of: modelClass, conformingTo: protocols)
        let isFinal = modelClass.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        var result: [DeclSyntax] = [members.backingDataStorage]
        if superclass == nil, !declared.hasPersistentBackingData {
            result.append(members.persistentBackingData)
        }
        if !declared.hasSchemaMetadata {
            result += superclass == nil && isFinal ? [members.schemaMetadata] : members.inheritableMembers(superclass: superclass)
        }
        if !declared.hasBackingDataInitializer {
            result.append(superclass == nil ? members.backingDataInitializer : members.inheritedBackingDataInitializer)
        }
        result.append(members.observationRegistrar)
        return result
    }

    /// The model class `modelClass` inherits from, if it does: the compiler passes `PersistentModel` among the
    /// conformances to add only when the class does not conform yet, so a class that already conforms without
    /// declaring it inherits the conformance — from its superclass, the first type of its inheritance clause.
    private static func modelSuperclass(of modelClass: ClassDeclSyntax, conformingTo protocols: [TypeSyntax]) -> String? {
        let names = { (type: TypeSyntax) -> String in
            type.as(IdentifierTypeSyntax.self)?.name.text ?? type.as(MemberTypeSyntax.self)?.name.text ?? type.trimmedDescription
        }
        guard !protocols.contains(where: { names($0) == "PersistentModel" }),
              let inherited = modelClass.inheritanceClause?.inheritedTypes, let first = inherited.first,
              !inherited.contains(where: { names($0.type) == "PersistentModel" })
        else { return nil }
        return first.type.trimmedDescription
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let modelClass = declaration.as(ClassDeclSyntax.self), modelClass.genericParameterClause == nil,
            let variable = member.as(VariableDeclSyntax.self),
            case .persisted = PersistedProperty.classify(variable)
        else { return [] }
        return ["@_PersistedProperty"]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let modelClass = declaration.as(ClassDeclSyntax.self), modelClass.genericParameterClause == nil else {
            return []
        }
        return ConformanceExtension.declarations(extending: type, conformingTo: protocols)
    }

    /// Reports every property in `conditional` (and the `#if`s nested in it) that would be persisted: its placeholder
    /// storage could not be initialized by `init(backingData:)` in every configuration.
    private static func diagnoseConditionalProperties(
        in conditional: IfConfigDeclSyntax,
        in context: some MacroExpansionContext
    ) {
        for clause in conditional.clauses {
            guard case .decls(let members) = clause.elements else { continue }
            for member in members {
                if let variable = member.decl.as(VariableDeclSyntax.self) {
                    switch PersistedProperty.classify(variable) {
                    case .persisted(let property):
                        let message = SwiftDataDiagnostic.insideConditionalCompilation(name: property.name)
                        context.diagnose(Diagnostic(node: property.identifier, message: message))
                    case .ignored: break
                    case .rejected(let diagnostics): diagnostics.forEach(context.diagnose)
                    }
                } else if let nested = member.decl.as(IfConfigDeclSyntax.self) {
                    diagnoseConditionalProperties(in: nested, in: context)
                }
            }
        }
    }
}

/// The members `@Model` would add that a class already declares itself.
private struct DeclaredMembers {
    var hasPersistentBackingData = false
    var hasSchemaMetadata = false
    var hasBackingDataInitializer = false

    init(_ memberBlock: MemberBlockSyntax) {
        for member in memberBlock.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                for binding in variable.bindings {
                    guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier else { continue }
                    switch identifier.identifier?.name ?? identifier.text {
                    case "persistentBackingData": hasPersistentBackingData = true
                    case "schemaMetadata": hasSchemaMetadata = true
                    default: break
                    }
                }
            } else if let initializer = member.decl.as(InitializerDeclSyntax.self) {
                let parameters = initializer.signature.parameterClause.parameters
                if parameters.count == 1, parameters.first?.firstName.text == "backingData" {
                    hasBackingDataInitializer = true
                }
            }
        }
    }
}
