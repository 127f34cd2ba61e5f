import SwiftSyntax
import SwiftSyntaxBuilder

/// One signature of the to-many relationship accessor methods that Xcode generates in
/// `+CoreDataProperties.swift` files, and the `NSManagedObject` entry point its body calls.
///
/// The method's name is a fixed prefix (`addTo`, `removeFrom`, `insertInto`, `replace`) followed by the
/// capitalized relationship name; its parameter labels and kinds select the entry point. The
/// generated body forwards the parameters under the same labels and adds the relationship name:
///
/// ```swift
/// @ManagedRelationshipAccessor public func insertIntoItems(_ value: Item, at idx: Int)
/// // body:
/// _insertManagedObject(value, at: idx, intoRelationship: "items")
/// ```
struct RelationshipAccessorShape {
    /// The name prefix, e.g. `addTo`.
    let prefix: String
    /// The parameters in order: their argument label (`nil` for `_`) and the kinds accepted there.
    let parameters: [(label: String?, kinds: Set<RelationshipParameterKind>)]
    /// The `NSManagedObject` method the body calls, e.g. `_addManagedObject`.
    let entryPoint: String
    /// The label of the relationship-name argument of ``entryPoint``, e.g. `toRelationship`.
    let relationshipLabel: String
    /// The parameter list as shown in diagnostics, e.g. `(_ value: T)`.
    let parameterList: String

    /// Every supported shape, in the order diagnostics list them.
    static let all: [RelationshipAccessorShape] = {
        let object: Set<RelationshipParameterKind> = [.object]
        let objects = RelationshipParameterKind.objectCollections
        let array: Set<RelationshipParameterKind> = [.array]
        let index: Set<RelationshipParameterKind> = [.index]
        let indexes: Set<RelationshipParameterKind> = [.indexSet]
        let collections = "NSSet | NSOrderedSet | Set<T> | [T]"
        let indexSets = "NSIndexSet | IndexSet"
        return [
            .init("addTo", [(nil, object)], "_addManagedObject", "toRelationship", "(_ value: T)"),
            .init("addTo", [(nil, objects)], "_addManagedObjects", "toRelationship", "(_ values: \(collections))"),
            .init("removeFrom", [(nil, object)], "_removeManagedObject", "fromRelationship", "(_ value: T)"),
            .init(
                "removeFrom", [(nil, objects)], "_removeManagedObjects", "fromRelationship",
                "(_ values: \(collections))"
            ),
            .init("removeFrom", [("at", index)], "_removeManagedObject", "fromRelationship", "(at idx: Int)"),
            .init(
                "removeFrom", [("at", indexes)], "_removeManagedObjects", "fromRelationship",
                "(at indexes: \(indexSets))"
            ),
            .init(
                "insertInto", [(nil, object), ("at", index)], "_insertManagedObject", "intoRelationship",
                "(_ value: T, at idx: Int)"
            ),
            .init(
                "insertInto", [(nil, array), ("at", indexes)], "_insertManagedObjects", "intoRelationship",
                "(_ values: [T], at indexes: \(indexSets))"
            ),
            .init(
                "replace", [("at", index), ("with", object)], "_replaceManagedObject", "inRelationship",
                "(at idx: Int, with value: T)"
            ),
            .init(
                "replace", [("at", indexes), ("with", array)], "_replaceManagedObjects", "inRelationship",
                "(at indexes: \(indexSets), with values: [T])"
            ),
        ]
    }()

    /// The distinct name prefixes, longest first so that no prefix hides another.
    static let prefixes: [String] = {
        var seen: [String] = []
        for shape in all where !seen.contains(shape.prefix) {
            seen.append(shape.prefix)
        }
        return seen.sorted { $0.count > $1.count }
    }()

    private init(
        _ prefix: String,
        _ parameters: [(label: String?, kinds: Set<RelationshipParameterKind>)],
        _ entryPoint: String,
        _ relationshipLabel: String,
        _ parameterList: String
    ) {
        self.prefix = prefix
        self.parameters = parameters
        self.entryPoint = entryPoint
        self.relationshipLabel = relationshipLabel
        self.parameterList = parameterList
    }

    /// The signature for diagnostics: `addToMoods(_ value: T)` for the suffix `Moods`, or
    /// `addTo<Key>(_ value: T)` without one.
    func signature(forSuffix suffix: Substring?) -> String {
        prefix + (suffix.map(String.init) ?? "<Key>") + parameterList
    }

    /// Whether parameters with these labels and kinds fit this shape.
    func matches(_ actual: [(label: String?, kind: RelationshipParameterKind)]) -> Bool {
        actual.count == parameters.count
            && zip(actual, parameters).allSatisfy { actual, expected in
                actual.label == expected.label && expected.kinds.contains(actual.kind)
            }
    }

    /// The body statement: a call to ``entryPoint`` forwarding `arguments` (the method's internal
    /// parameter names, in order) under this shape's labels, then the relationship key.
    ///
    /// For example: `_addManagedObject(value, toRelationship: "moods")`.
    func call(forwarding arguments: [TokenSyntax], key: String) -> CodeBlockItemSyntax {
        let forwarded = zip(parameters, arguments).map { parameter, name in
            (parameter.label.map { "\($0): " } ?? "") + name.trimmed.text
        }
        let relationship = "\(relationshipLabel): \(ManagedKey.literal(key))"
        return "\(raw: entryPoint)(\(raw: (forwarded + [relationship]).joined(separator: ", ")))"
    }
}
