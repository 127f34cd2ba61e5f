import SwiftSyntax

/// The marker attributes that `@Model` reads on a property: `@Attribute(…)`, `@Relationship(…)` and `@Transient`.
///
/// Each is recognized unqualified or qualified by `OpenSwiftData` or `SwiftData` (so code shared with an Apple
/// platform, where the module is `SwiftData`, reads the same):
///
/// ```swift
/// @Attribute(.unique) var code: String              // .attribute
/// @SwiftData.Relationship(deleteRule: .cascade) var stops: [Stop] = []   // .relationship
/// @OpenSwiftData.Transient var cache = 0           // .transient
/// ```
enum SchemaMarker: String, CaseIterable {
    case attribute = "Attribute"
    case relationship = "Relationship"
    case transient = "Transient"

    /// The module names a marker may be qualified with.
    private static let modules: Set<String> = ["OpenSwiftData", "SwiftData"]

    /// The marker that `attribute` spells, or `nil` for any other attribute.
    init?(_ attribute: AttributeSyntax) {
        let type = attribute.attributeName
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            self.init(rawValue: identifier.name.text)
        } else if let member = type.as(MemberTypeSyntax.self), member.genericArgumentClause == nil,
            let module = member.baseType.as(IdentifierTypeSyntax.self), module.genericArgumentClause == nil,
            Self.modules.contains(module.name.text)
        {
            self.init(rawValue: member.name.text)
        } else {
            return nil
        }
    }

    /// The attributes among `attributes` that spell this marker (`#if` inside an attribute list is not searched).
    func occurrences(in attributes: AttributeListSyntax) -> [AttributeSyntax] {
        attributes.compactMap { element in
            guard case .attribute(let attribute) = element, SchemaMarker(attribute) == self else { return nil }
            return attribute
        }
    }

    /// Whether `attributes` contain this marker.
    func isPresent(in attributes: AttributeListSyntax) -> Bool {
        !occurrences(in: attributes).isEmpty
    }
}
