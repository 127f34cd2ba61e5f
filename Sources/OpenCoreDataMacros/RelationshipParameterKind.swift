import SwiftSyntax

/// What a parameter of a relationship accessor method carries, judged from its written type.
///
/// A macro sees only syntax, so the kind is read from the type's spelling: `NSSet`, `Set<Mood>`,
/// `[Mood]`, `Int`, `NSIndexSet`, … (module-qualified spellings such as `Foundation.NSSet` and
/// `Swift.Int` count too). Any other type is taken to be a managed object class — the compiler checks
/// that when it type-checks the generated call.
enum RelationshipParameterKind: Hashable {
    /// One related object: `Mood`.
    case object
    /// `[Mood]` or `Array<Mood>`.
    case array
    /// `Set<Mood>`.
    case set
    /// `NSSet`.
    case nsSet
    /// `NSOrderedSet`.
    case nsOrderedSet
    /// A position in an ordered relationship: `Int`.
    case index
    /// Positions in an ordered relationship: `NSIndexSet` or `IndexSet`.
    case indexSet
    /// An `inout` or variadic parameter, which no shape accepts.
    case unsupported

    /// Every kind that holds several related objects, as `addTo…(_:)` and `removeFrom…(_:)` accept them.
    static let objectCollections: Set<RelationshipParameterKind> = [.array, .set, .nsSet, .nsOrderedSet]

    /// The kind of `parameter`.
    init(_ parameter: FunctionParameterSyntax) {
        if parameter.ellipsis != nil {
            self = .unsupported
        } else {
            self.init(parameter.type)
        }
    }

    /// The kind of a parameter declared with `type`.
    init(_ type: TypeSyntax) {
        if let attributed = type.as(AttributedTypeSyntax.self) {
            let isInout = attributed.specifiers.contains { specifier in
                specifier.as(SimpleTypeSpecifierSyntax.self)?.specifier.tokenKind == .keyword(.inout)
            }
            self = isInout ? .unsupported : RelationshipParameterKind(attributed.baseType)
        } else if type.is(ArrayTypeSyntax.self) {
            self = .array
        } else if let name = Self.simpleName(of: type) {
            self = Self.byName[name] ?? .object
        } else {
            self = .object
        }
    }

    /// The kinds recognised by the type's (last) name.
    private static let byName: [String: RelationshipParameterKind] = [
        "Array": .array,
        "Set": .set,
        "NSSet": .nsSet,
        "NSOrderedSet": .nsOrderedSet,
        "Int": .index,
        "NSIndexSet": .indexSet,
        "IndexSet": .indexSet,
    ]

    /// `Set` for `Set<Mood>` and `Swift.Set<Mood>`; `nil` for types that are not named (tuples, functions, …).
    private static func simpleName(of type: TypeSyntax) -> String? {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return identifier.name.text
        }
        if let member = type.as(MemberTypeSyntax.self) {
            return member.name.text
        }
        return nil
    }
}
