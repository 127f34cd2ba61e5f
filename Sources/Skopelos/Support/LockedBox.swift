import OpenCoreData

/// A value behind a lock.
final class LockedBox<Value>: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func update<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
