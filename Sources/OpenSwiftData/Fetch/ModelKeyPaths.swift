import Foundation
import OpenCoreData

/// Names a model key path as Core Data's key-value coding path: a persisted property of the root model (from the
/// `@Model` metadata), or a path through its relationships (`\Stop.trip?.name` → `"trip.name"`), found by reading the
/// key path on probe models that record the properties read (a key path's description names no components on Linux).
///
/// ```swift
/// ModelKeyPaths.name(of: \Stop.trip?.name)   // "trip.name"
/// ```
enum ModelKeyPaths {
    static func name(of keyPath: AnyKeyPath) -> String? {
        guard let root = type(of: keyPath).rootType as? any PersistentModel.Type else { return nil }
        if let name = ModelLayout.of(root).propertiesByKeyPath[keyPath]?.name { return name }
        return probe(keyPath, from: root)
    }

    private static func probe<Root: PersistentModel>(_ keyPath: AnyKeyPath, from root: Root.Type) -> String? {
        guard let path = keyPath as? PartialKeyPath<Root> else { return nil }
        let recorder = ProbeRecorder()
        let model = Root(backingData: ProbeBackingData<Root>(recorder: recorder))
        _ = model[keyPath: path]
        return recorder.path.isEmpty ? nil : recorder.path.joined(separator: ".")
    }
}

/// The persisted properties a probe read, in order.
final class ProbeRecorder {
    var path: [String] = []
}

/// The backing data of a probe model: reading a property records its name and returns a probe of the related model
/// (so the key path goes on) or a placeholder value.
final class ProbeBackingData<Model: PersistentModel>: BackingData {
    let recorder: ProbeRecorder

    init(for modelType: Model.Type) { recorder = ProbeRecorder() }

    init(recorder: ProbeRecorder) { self.recorder = recorder }

    var persistentModelID: PersistentIdentifier? {
        get { nil }
        set {}   // a probe has no row
    }

    var metadata: Any { recorder }

    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value {
        let property = ModelLayout.property(for: key, of: Model.self)
        recorder.path.append(property.name)
        if case .toOne(let destination, _) = property.kind { return probe(of: destination) as! Value }
        if let optional = Value.self as? any _OptionalModelValue.Type { return optional.nilValue as! Value }
        if let array = Value.self as? any _ModelArrayValue.Type { return array.make([]) as! Value }
        if let value = ProbePlaceholder.value(of: Value.self) { return value }
        preconditionFailure("\(Model.self).\(property.name) (\(Value.self)) cannot be a step of a key path to sort or prefetch by.")
    }

    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {}

    private func probe<Destination: PersistentModel>(of type: Destination.Type) -> Destination {
        Destination(backingData: ProbeBackingData<Destination>(recorder: recorder))
    }
}

/// A value of each stored scalar type (what a probe's last step returns).
enum ProbePlaceholder {
    static func value<Value>(of type: Value.Type) -> Value? {
        let placeholders: [Any] = [
            "", 0 as Int, 0 as Int64, 0 as Int32, 0 as Int16, false, 0 as Double, 0 as Float, Decimal(0),
            Date(timeIntervalSince1970: 0), Data(), UUID(), URL(fileURLWithPath: "/"),
        ]
        if let value = placeholders.lazy.compactMap({ $0 as? Value }).first { return value }
        if let cases = Value.self as? any CaseIterable.Type { return firstCase(of: cases) as? Value }
        return nil
    }

    private static func firstCase<C: CaseIterable>(of type: C.Type) -> Any? { C.allCases.first }
}
