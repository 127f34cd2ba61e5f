/// Names Swift key paths of managed object classes (`\Mood.country?.name` → `"country.name"`), which Linux
/// cannot do from the key path itself (computed properties carry no names). It evaluates the key path on a
/// *probe*: an instance that has no storage and whose `@Managed` getters record the keys they are asked for and
/// return placeholder values (a probe of the destination class for relationships, so paths can continue).
enum KeyPathRecorder {
    /// The keys recorded by the probe evaluation running on this task.
    final class Recording: @unchecked Sendable {
        // @unchecked Sendable: used only by the thread that runs one synchronous key path evaluation.
        var keys: [String] = []
    }

    @TaskLocal static var recording: Recording?

    private static let cache = KeyPathNameCache()

    /// Records a key asked of a probe.
    static func record(_ key: String) {
        recording?.keys.append(key)
    }

    /// The name of `keyPath` (rooted at `root`), or nil if it does not go through managed properties.
    static func keyPathString(for keyPath: AnyKeyPath, root: NSManagedObject.Type) -> String? {
        if let cached = cache[keyPath] { return cached }
        let probe = makeProbe(of: root)
        let recording = Recording()
        $recording.withValue(recording) { _ = probe[keyPath: keyPath] }
        guard !recording.keys.isEmpty else { return nil }
        let name = recording.keys.joined(separator: ".")
        cache[keyPath] = name
        return name
    }

    /// A storage-less instance of `objectClass` whose accessors record keys.
    static func makeProbe(of objectClass: NSManagedObject.Type) -> NSManagedObject {
        objectClass.init(entity: probeEntity, insertInto: nil)
    }

    /// The entity of probes, and only of probes: no properties, in no model.
    static let probeEntity: NSEntityDescription = {
        let entity = NSEntityDescription()
        entity.name = "_OpenCoreDataKeyPathProbe"
        return entity
    }()

    /// What a probe's KVC getter returns (only key recording matters).
    static func probeValue(forKey key: String, of probe: NSManagedObject) -> Any? { nil }

    /// A value of `Value` for a probe getter to return: a probe for managed object types (so the key path can
    /// continue), nil for optionals of other types, empty or zero values otherwise.
    static func placeholder<Value>(_ type: Value.Type) -> Value {
        if let objectClass = Value.self as? NSManagedObject.Type, let probe = makeProbe(of: objectClass) as? Value { return probe }
        if let optional = Value.self as? OptionalValue.Type {
            if let objectClass = optional.wrappedType as? NSManagedObject.Type,
                let wrapped = optional.wrapping(makeProbe(of: objectClass)) as? Value
            {
                return wrapped
            }
            if let none = optional.none_ as? Value { return none }
        }
        let value: Any? = switch Value.self {
        case is Int.Type: Int(0)
        case is Int16.Type: Int16(0)
        case is Int32.Type: Int32(0)
        case is Int64.Type: Int64(0)
        case is Bool.Type: false
        case is Double.Type: Double(0)
        case is Float.Type: Float(0)
        case is Decimal.Type: Decimal(0)
        case is String.Type: ""
        case is Date.Type: Date(timeIntervalSinceReferenceDate: 0)
        case is Data.Type: Data()
        case is UUID.Type: UUID()
        case is URL.Type: URL(fileURLWithPath: "/")
        case is NSSet.Type: NSSet()
        case is NSOrderedSet.Type: NSOrderedSet()
        default: (Value.self as? any ExpressibleByArrayLiteral.Type).map { emptyCollection($0) } ?? nil
        }
        guard let typed = value as? Value else {
            preconditionFailure("Cannot name a key path through a property of type \(Value.self); use the string key instead (e.g. NSSortDescriptor(key:ascending:)).")
        }
        return typed
    }

    private static func emptyCollection<C: ExpressibleByArrayLiteral>(_ type: C.Type) -> Any {
        let empty: C = []
        return empty
    }
}


/// Names already computed, by key path.
final class KeyPathNameCache: @unchecked Sendable {
    // @unchecked Sendable: `names` is only touched while holding `lock`.
    private let lock = NSLock()
    private var names: [AnyKeyPath: String] = [:]

    subscript(keyPath: AnyKeyPath) -> String? {
        get { lock.withLock { names[keyPath] } }
        set { lock.withLock { names[keyPath] = newValue } }
    }
}
