import SwiftDiagnostics

/// The errors that the SwiftData macros report.
///
/// Each case renders one message that names the macro or the rule and, where there is one, the way out: the
/// reader is usually porting a SwiftData model written for Apple platforms.
enum SwiftDataDiagnostic: DiagnosticMessage {
    // MARK: Where a macro is used

    /// `@Model` on a struct, enum, actor or protocol.
    case modelNotOnClass

    /// `@Model` on a class with generic parameters.
    case genericModel(className: String)

    /// `@ModelActor` on anything but an actor.
    case modelActorNotOnActor

    /// `@Attribute`, `@Relationship` or `@Transient` on something that is not a property.
    case markerNotOnProperty(macro: String)

    /// `@_PersistedProperty` on something that is not a single stored `var` without accessors.
    case persistedPropertyMisplaced

    // MARK: Properties of a @Model class

    /// `let name: String`.
    case letProperty

    /// `var name: String { didSet { … } }`.
    case observers

    /// `var a, b: Int`.
    case multipleBindings

    /// `var (a, b) = (1, 2)`.
    case tuplePattern

    /// `weak var owner: Owner?` or `unowned var owner: Owner`.
    case referenceOwnership(modifier: String)

    /// A persisted property inside `#if … #endif`.
    case insideConditionalCompilation(name: String)

    /// `@Attribute` and `@Relationship` on the same property.
    case attributeAndRelationship

    // MARK: #Unique and #Index

    /// `#Unique([\Trip.name])`: no model type.
    case missingModelType(macro: String)

    /// `#Unique<Trip>(keyPaths)` or `#Unique<Trip>([name])`: not an array literal of key paths.
    case notAKeyPathArray(macro: String)

    // MARK: DiagnosticMessage

    var message: String {
        switch self {
        case .modelNotOnClass:
            return "'@Model' can only be applied to a class"
        case .genericModel(let className):
            return "'@Model' does not support generic classes; remove the generic parameters of '\(className)'"
        case .modelActorNotOnActor:
            return "'@ModelActor' can only be applied to an actor"
        case .markerNotOnProperty(let macro):
            return "'@\(macro)' applies to a property of a @Model class"
        case .persistedPropertyMisplaced:
            return "'@_PersistedProperty' applies to a single stored 'var' without accessors; '@Model' adds it for you"
        case .letProperty:
            return "'let' properties of a @Model class are not persisted; use 'var'"
        case .observers:
            return "a persisted property cannot have observers; mark it @Transient"
        case .multipleBindings:
            return "a @Model class needs one persisted property per declaration; declare each property with its own 'var'"
        case .tuplePattern:
            return "a persisted property needs a simple name, not a tuple pattern; declare each property with its own 'var'"
        case .referenceOwnership(let modifier):
            return "a persisted property cannot be '\(modifier)'; mark it @Transient"
        case .insideConditionalCompilation(let name):
            return "persisted property '\(name)' cannot be declared inside '#if'; move it out of the '#if' block or mark it @Transient"
        case .attributeAndRelationship:
            return "a property cannot have both '@Attribute' and '@Relationship'; use '@Relationship' for a relationship and '@Attribute' for an attribute"
        case .missingModelType(let macro):
            return "'#\(macro)' needs the model type as its generic argument, e.g. '#\(macro)<Trip>([\\.name])'"
        case .notAKeyPathArray(let macro):
            return "each argument of '#\(macro)' must be an array literal of key paths, e.g. '[\\.name, \\.start]'"
        }
    }

    var severity: DiagnosticSeverity { .error }

    var diagnosticID: MessageID {
        MessageID(domain: "OpenSwiftDataMacros", id: identifier)
    }

    /// A stable name for each case, used as the diagnostic ID.
    private var identifier: String {
        switch self {
        case .modelNotOnClass: "modelNotOnClass"
        case .genericModel: "genericModel"
        case .modelActorNotOnActor: "modelActorNotOnActor"
        case .markerNotOnProperty: "markerNotOnProperty"
        case .persistedPropertyMisplaced: "persistedPropertyMisplaced"
        case .letProperty: "letProperty"
        case .observers: "observers"
        case .multipleBindings: "multipleBindings"
        case .tuplePattern: "tuplePattern"
        case .referenceOwnership: "referenceOwnership"
        case .insideConditionalCompilation: "insideConditionalCompilation"
        case .attributeAndRelationship: "attributeAndRelationship"
        case .missingModelType: "missingModelType"
        case .notAKeyPathArray: "notAKeyPathArray"
        }
    }
}

/// The fix-its offered with ``SwiftDataDiagnostic``.
enum SwiftDataFixIt: FixItMessage {
    /// Replace `let` with `var`.
    case useVar

    var message: String {
        switch self {
        case .useVar: "replace 'let' with 'var'"
        }
    }

    var fixItID: MessageID {
        switch self {
        case .useVar: MessageID(domain: "OpenSwiftDataMacros", id: "useVar")
        }
    }
}
