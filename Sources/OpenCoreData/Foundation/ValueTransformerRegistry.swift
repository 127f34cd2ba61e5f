import Foundation

/// The process-wide table of value transformers by name, behind
/// `ValueTransformer.setValueTransformer(_:forName:)`, `ValueTransformer(forName:)` and
/// `ValueTransformer.valueTransformerNames()`.
///
/// It starts with Apple's built-in transformers registered under their names.
///
/// ```swift
/// ValueTransformerRegistry.shared.set(ColorsTransformer(), forName: NSValueTransformerName("ColorsTransformer"))
/// let transformer = ValueTransformerRegistry.shared.transformer(forName: .isNilTransformerName)
/// ```
final class ValueTransformerRegistry: @unchecked Sendable {
    // @unchecked Sendable: `transformers` is only read or written while holding `lock`.

    static let shared = ValueTransformerRegistry()

    private let lock = NSLock()
    private var transformers: [NSValueTransformerName: ValueTransformer]

    private init() {
        transformers = [
            .negateBooleanTransformerName: NegateBooleanTransformer(),
            .isNilTransformerName: IsNilTransformer(),
            .isNotNilTransformerName: IsNotNilTransformer(),
            .unarchiveFromDataTransformerName: UnarchiveFromDataTransformer(),
            .keyedUnarchiveFromDataTransformerName: KeyedUnarchiveFromDataTransformer(),
            .secureUnarchiveFromDataTransformerName: NSSecureUnarchiveFromDataTransformer(),
        ]
    }

    /// The transformer registered under `name`, if any.
    func transformer(forName name: NSValueTransformerName) -> ValueTransformer? {
        lock.withLock { transformers[name] }
    }

    /// Registers `transformer` under `name`, replacing any previous one; nil removes the registration.
    func set(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        lock.withLock { transformers[name] = transformer }
    }

    /// Every registered name, sorted by raw value.
    func names() -> [NSValueTransformerName] {
        lock.withLock { transformers.keys.sorted { $0.rawValue < $1.rawValue } }
    }
}
