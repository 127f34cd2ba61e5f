import Foundation

/// A value guarded by a pthread mutex (`NSLock`), with the `withLock` shape of `Synchronization.Mutex`.
///
/// The package uses it instead of `Mutex` because on Linux `Mutex` locks with futexes inside the Swift runtime,
/// which is not instrumented: the thread sanitizer cannot see that the lock orders the accesses it guards and
/// reports every guarded access from two threads as a data race (`swift test --sanitize=thread`, see
/// `ConcurrencyStressTests`). TSan intercepts pthread mutexes, so with this lock its reports are real races.
///
/// For example:
/// ```swift
/// let counts = Locked<[String: Int]>([:])
/// counts.withLock { $0["saves", default: 0] += 1 }
/// ```
///
/// OpenSwiftData uses it too (SPI), for the same reason.
@_spi(OpenSwiftData)
public final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only inside `withLock`, while holding `lock`.
    // `@usableFromInline` (not private): `withLock` is inlined into its callers in other modules, so that its
    // closure is still specialized away as it was when everything was one module.
    @usableFromInline let lock = NSLock()
    /// Not checked for exclusive access at run time: `lock` already makes every access exclusive (a nested
    /// `withLock` stops at the lock before it reaches the value), and the check cost a thread-local look-up per call.
    @usableFromInline @exclusivity(unchecked) var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
