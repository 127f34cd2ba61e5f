import Synchronization
@_spi(OpenSwiftData) import OpenCoreDataSupport

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

/// A value computed once and then read without a lock (an atomic reference; what the ``FrozenCache`` of a class
/// value would be, for values read on every object created).
///
/// ```swift
/// let layoutCache = OnceReference<EntityLayout>()
/// let layout = layoutCache.value { EntityLayout(entity: entity) }   // computed on first use only
/// ```
final class OnceReference<Value: AnyObject & Sendable>: Sendable {
    private let storage = Atomic<Unmanaged<Value>?>(nil)

    /// The value, computed by `compute` on first use. Threads racing on the first use may each compute it;
    /// all of them get the first one stored.
    func value(_ compute: () -> Value) -> Value {
        if let stored = storage.load(ordering: .acquiring) { return stored.takeUnretainedValue() }
        let computed = Unmanaged.passRetained(compute())
        let (stored, original) = storage.compareExchange(expected: nil, desired: computed, ordering: .acquiringAndReleasing)
        if stored { return computed.takeUnretainedValue() }
        computed.release()
        return original!.takeUnretainedValue()
    }

    /// Drops the value; the next ``value(_:)`` computes it again. Only for an owner that is going away (a reader
    /// racing with it could be handed a value this releases).
    func reset() {
        storage.exchange(nil, ordering: .acquiringAndReleasing)?.release()
    }

    deinit { storage.load(ordering: .acquiring)?.release() }
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
