import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `#Unique<Trip>([\.name, \.start], [\.code])`: the model's uniqueness constraints, one per argument.
///
/// ```swift
/// #Unique<Trip>([\.name, \.start], [\.code])
/// // expands to
/// public static var _$uniquenessConstraints: [[AnyKeyPath]] { [[\Trip.name, \Trip.start], [\Trip.code]] }
/// ```
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        KeyPathGroups.declaration(of: node, macro: "Unique", property: "_$uniquenessConstraints", in: context)
    }
}

/// `#Index<Trip>([\.name], [\.start, \.end])`: the model's indices, one per argument.
///
/// ```swift
/// #Index<Trip>([\.name], [\.start, \.end])
/// // expands to
/// public static var _$indices: [[AnyKeyPath]] { [[\Trip.name], [\Trip.start, \Trip.end]] }
/// ```
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        KeyPathGroups.declaration(of: node, macro: "Index", property: "_$indices", in: context)
    }
}

/// The expansion shared by `#Unique` and `#Index`: groups of key paths rooted at the model type.
enum KeyPathGroups {
    /// `public static var <property>: [[AnyKeyPath]] { … }` for the arguments of `node`, with each `\.x` rewritten to
    /// `\Model.x`; nothing when the generic argument or an argument is not usable (each problem reported).
    static func declaration(
        of node: some FreestandingMacroExpansionSyntax,
        macro: String,
        property: String,
        in context: some MacroExpansionContext
    ) -> [DeclSyntax] {
        guard let genericArguments = node.genericArgumentClause?.arguments, genericArguments.count == 1,
            case .type(let modelType) = genericArguments.first?.argument
        else {
            let location = node.genericArgumentClause.map(Syntax.init) ?? Syntax(node.macroName)
            context.diagnose(Diagnostic(node: location, message: SwiftDataDiagnostic.missingModelType(macro: macro)))
            return []
        }
        var groups: [String] = []
        var isValid = true
        for argument in node.arguments {
            guard let array = argument.expression.as(ArrayExprSyntax.self),
                array.elements.allSatisfy({ $0.expression.is(KeyPathExprSyntax.self) })
            else {
                context.diagnose(Diagnostic(node: argument.expression, message: SwiftDataDiagnostic.notAKeyPathArray(macro: macro)))
                isValid = false
                continue
            }
            let keyPaths = array.elements.compactMap { $0.expression.as(KeyPathExprSyntax.self) }
                .map { rooted($0, at: modelType).trimmedDescription }
            groups.append("[" + keyPaths.joined(separator: ", ") + "]")
        }
        guard isValid else { return [] }
        let list = "[" + groups.joined(separator: ", ") + "]"
        return [DeclSyntax(stringLiteral: "public static var \(property): [[AnyKeyPath]] { \(list) }")]
    }

    /// `keyPath` with `type` as its root when it has none (`\.name` → `\Trip.name`).
    private static func rooted(_ keyPath: KeyPathExprSyntax, at type: TypeSyntax) -> KeyPathExprSyntax {
        guard keyPath.root == nil else { return keyPath.trimmed }
        return keyPath.trimmed.with(\.root, type.trimmed)
    }
}
