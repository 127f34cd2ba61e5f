/// Carries a non-Sendable value across a concurrency boundary whose safety the caller guarantees (a
/// context's queue, a coordinator's lock).
struct UncheckedSendableBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: used only to hand a closure or object to the queue that owns it.
    let value: Value
    init(_ value: Value) { self.value = value }
}
