/// A value computed once from a frozen model and kept for every later reader.
///
/// While a model is still editable, derived values (version hashes, `propertiesByName`, …) are recomputed on
/// every call, so no cache can go stale; once a coordinator has frozen the model they are computed once.
final class FrozenCache<Value: Sendable>: Sendable {
    private let storage = Locked<Value?>(nil)

    /// The cached value if `frozen`, computing and storing it on first use; `compute()` otherwise.
    func value(frozen: Bool, _ compute: () -> Value) -> Value {
        guard frozen else { return compute() }
        if let cached = storage.withLock({ $0 }) { return cached }
        let computed = compute()
        storage.withLock { $0 = computed }
        return computed
    }
}

/// Stops the program when a frozen model is mutated, as Apple's Core Data raises
/// ("Can't modify an immutable model.").
@inline(__always)
func checkModelEditable(_ model: NSManagedObjectModel?, _ mutation: @autoclosure () -> String) {
    guard let model, model.isFrozen else { return }
    preconditionFailure(
        "Can't modify an immutable model: \(model.debugName) is in use by a persistent store coordinator "
            + "and cannot \(mutation()).")
}
