import SwiftDiagnostics

/// The errors that `@Managed` and `@ManagedRelationshipAccessor` report.
///
/// Each case renders one message. The messages name the macro, the declaration and — where there is one —
/// the way out, because the person who reads them is usually converting Xcode-generated
/// `@NSManaged` code and needs to know what to write instead.
enum ManagedDiagnostic: DiagnosticMessage {
    // MARK: Where the macro is used

    /// The macro is attached to a declaration that is not in a class or an extension.
    ///
    /// `context` describes where it is instead, e.g. "struct 'Point'" or "a local scope".
    case notInClass(macro: String, context: String)

    /// `@Managed` is attached to a subscript.
    case notAProperty

    /// `@ManagedRelationshipAccessor` is attached to an initializer, a deinitializer or an accessor.
    case notAMethod

    // MARK: Properties

    /// `@Managed var a: Int, b: Int`.
    case multipleBindings

    /// `@Managed var (a, b): (Int, Int)`.
    case notAnIdentifier

    /// `@Managed let x: Int`.
    case letProperty(name: String)

    /// `@Managed static var x: Int` (or `class var`) — also used for methods.
    case typeMember(name: String, modifier: String)

    /// `@Managed lazy var`, `weak var`, `unowned var`: modifiers that only make sense for stored properties.
    case storedOnlyModifier(name: String, modifier: String)

    /// `@Managed var x = 1`.
    case missingTypeAnnotation(name: String)

    /// `@Managed var x: Int = 1`.
    case initialValue(name: String)

    /// `@Managed var x: Int { get }` or `{ didSet { … } }`.
    case existingAccessors(name: String)

    /// `@Managed var primitive: Int`.
    case barePrimitive

    // MARK: The explicit key

    /// `@Managed(someConstant)` or `@Managed("a\(b)")`.
    case keyNotALiteral(macro: String)

    /// `@Managed("")`.
    case emptyKey(macro: String)

    // MARK: Relationship accessor methods

    /// `@ManagedRelationshipAccessor func addToMoods(_ value: Mood) { … }`.
    case methodHasBody(name: String)

    /// The method name does not start with `addTo`, `removeFrom`, `insertInto` or `replace` plus a key.
    ///
    /// `shapes` lists every accepted signature, one per line.
    case unknownAccessorName(name: String, shapes: [String])

    /// The name is known but the parameters or the return type fit none of its shapes.
    ///
    /// `shapes` lists the accepted signatures for that name, one per line.
    case unsupportedShape(signature: String, shapes: [String])

    /// A parameter has no internal name (`_ _: Mood`), so the generated body cannot forward it.
    case unnamedParameter(function: String)

    // MARK: DiagnosticMessage

    var message: String {
        switch self {
        case .notInClass(let macro, let context):
            return "'@\(macro)' can only be used in an NSManagedObject subclass or an extension of one, not in \(context)"
        case .notAProperty:
            return "'@Managed' applies to properties; it cannot be attached to a subscript"
        case .notAMethod:
            return "'@ManagedRelationshipAccessor' applies to methods such as 'addToItems(_:)'; it cannot be attached here"
        case .multipleBindings:
            return "'@Managed' applies to one property per declaration; declare each property with its own 'var'"
        case .notAnIdentifier:
            return "'@Managed' applies to a property with a simple name, not to a tuple pattern"
        case .letProperty(let name):
            return "'@Managed' property '\(name)' must be declared with 'var'; Core Data can change its value"
        case .typeMember(let name, let modifier):
            return "'\(name)' cannot be '\(modifier)': managed properties and relationship accessors belong to an object"
        case .storedOnlyModifier(let name, let modifier):
            return "'@Managed' property '\(name)' cannot be '\(modifier)': its value is stored by the managed object context"
        case .missingTypeAnnotation(let name):
            return "'@Managed' property '\(name)' needs an explicit type, e.g. 'var \(name): String'"
        case .initialValue(let name):
            return "'@Managed' property '\(name)' cannot have an initial value; set a default value in the model instead"
        case .existingAccessors(let name):
            return "'@Managed' property '\(name)' cannot have its own getter, setter or observers; '@Managed' provides the accessors"
        case .barePrimitive:
            return "'primitive' is not a primitive accessor name; name it 'primitive' followed by the capitalized key, e.g. 'primitiveDate' for 'date'"
        case .keyNotALiteral(let macro):
            return "the key of '@\(macro)' must be a string literal without interpolation, e.g. @\(macro)(\"remote_id\")"
        case .emptyKey(let macro):
            return "the key of '@\(macro)' cannot be empty"
        case .methodHasBody(let name):
            return "'@ManagedRelationshipAccessor' method '\(name)' cannot have a body; the macro generates it"
        case .unknownAccessorName(let name, let shapes):
            return """
                '@ManagedRelationshipAccessor' cannot tell which relationship '\(name)' accesses: \
                the name must be 'addTo', 'removeFrom', 'insertInto' or 'replace' followed by the \
                capitalized relationship name; supported shapes (T is the related entity's class):
                """ + Self.list(shapes)
        case .unsupportedShape(let signature, let shapes):
            return "'@ManagedRelationshipAccessor' does not support '\(signature)'; "
                + "supported shapes (T is the related entity's class):" + Self.list(shapes)
        case .unnamedParameter(let function):
            return "every parameter of '@ManagedRelationshipAccessor' method '\(function)' needs a name; the generated body forwards it"
        }
    }

    var severity: DiagnosticSeverity { .error }

    /// `shapes` as an indented list, one per line, starting on a new line.
    private static func list(_ shapes: [String]) -> String {
        shapes.map { "\n  \($0)" }.joined()
    }

    var diagnosticID: MessageID {
        MessageID(domain: "OpenCoreDataMacros", id: identifier)
    }

    /// A stable name for each case, used as the diagnostic ID.
    private var identifier: String {
        switch self {
        case .notInClass: "notInClass"
        case .notAProperty: "notAProperty"
        case .notAMethod: "notAMethod"
        case .multipleBindings: "multipleBindings"
        case .notAnIdentifier: "notAnIdentifier"
        case .letProperty: "letProperty"
        case .typeMember: "typeMember"
        case .storedOnlyModifier: "storedOnlyModifier"
        case .missingTypeAnnotation: "missingTypeAnnotation"
        case .initialValue: "initialValue"
        case .existingAccessors: "existingAccessors"
        case .barePrimitive: "barePrimitive"
        case .keyNotALiteral: "keyNotALiteral"
        case .emptyKey: "emptyKey"
        case .methodHasBody: "methodHasBody"
        case .unknownAccessorName: "unknownAccessorName"
        case .unsupportedShape: "unsupportedShape"
        case .unnamedParameter: "unnamedParameter"
        }
    }
}

/// The fix-its offered with ``ManagedDiagnostic``.
enum ManagedFixIt: FixItMessage {
    /// Replace `let` with `var`.
    case useVar
    /// Remove a modifier such as `static` or `lazy`.
    case removeModifier(String)
    /// Remove `= value`.
    case removeInitialValue
    /// Remove a method's `{ … }`.
    case removeBody

    var message: String {
        switch self {
        case .useVar: "replace 'let' with 'var'"
        case .removeModifier(let modifier): "remove '\(modifier)'"
        case .removeInitialValue: "remove the initial value"
        case .removeBody: "remove the body"
        }
    }

    var fixItID: MessageID {
        switch self {
        case .useVar: MessageID(domain: "OpenCoreDataMacros", id: "useVar")
        case .removeModifier: MessageID(domain: "OpenCoreDataMacros", id: "removeModifier")
        case .removeInitialValue: MessageID(domain: "OpenCoreDataMacros", id: "removeInitialValue")
        case .removeBody: MessageID(domain: "OpenCoreDataMacros", id: "removeBody")
        }
    }
}
