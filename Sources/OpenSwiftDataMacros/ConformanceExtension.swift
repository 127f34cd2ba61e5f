import SwiftSyntax
import SwiftSyntaxBuilder

/// The extension an extension macro adds to declare the conformances a type does not declare yet.
///
/// The compiler lists in `conformingTo` only the protocols of the macro's `conformances:` that the type does not
/// already conform to; each is written module-qualified, whatever spelling the compiler passes:
///
/// ```swift
/// extension Trip: OpenSwiftData.PersistentModel, Observation.Observable {}
/// ```
enum ConformanceExtension {
    /// The module-qualified spelling of each protocol the macros conform types to, by its unqualified name.
    private static let qualifiedNames = [
        "PersistentModel": "OpenSwiftData.PersistentModel",
        "ModelActor": "OpenSwiftData.ModelActor",
        "Observable": "Observation.Observable",
    ]

    /// The extension declaring `protocols` for `type`, or none when `protocols` is empty.
    static func declarations(
        extending type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax]
    ) -> [ExtensionDeclSyntax] {
        guard !protocols.isEmpty else { return [] }
        let conformances = protocols.map(qualified).joined(separator: ", ")
        let declaration: DeclSyntax = "extension \(type.trimmed): \(raw: conformances) {}"
        return [declaration.cast(ExtensionDeclSyntax.self)]
    }

    /// `type` module-qualified when it is one of the protocols the macros know.
    private static func qualified(_ type: TypeSyntax) -> String {
        let name: String
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            name = identifier.name.text
        } else if let member = type.as(MemberTypeSyntax.self) {
            name = member.name.text
        } else {
            return type.trimmedDescription
        }
        return qualifiedNames[name] ?? type.trimmedDescription
    }
}
