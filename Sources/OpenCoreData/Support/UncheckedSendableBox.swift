/// Carries a non-Sendable value across a concurrency boundary whose safety the caller guarantees (a
/// context's queue, a coordinator's lock).
package struct UncheckedSendableBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: used only to hand a closure or object to the queue that owns it.
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
