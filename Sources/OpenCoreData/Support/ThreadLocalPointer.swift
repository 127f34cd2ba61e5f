#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pointer-sized value per thread (a POSIX thread-specific key): for state that synchronous code on one thread
/// hands to code it calls, where a `@TaskLocal` would allocate on every binding and a child `Task` would inherit it.
///
/// ```swift
/// static let depth = ThreadLocalPointer()
/// depth.value = UnsafeRawPointer(bitPattern: 1)
/// ```
package final class ThreadLocalPointer: @unchecked Sendable { // The key is created once; each thread reads and writes its own slot.
    /// A constant, so reading it takes no exclusivity check (a `var` paid one per read: three per fault made).
    @usableFromInline let key: pthread_key_t

    package init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// This thread's value (nil until set).
    @inlinable
    package var value: UnsafeRawPointer? {
        get { pthread_getspecific(key).map { UnsafeRawPointer($0) } }
        set { pthread_setspecific(key, newValue) }
    }
}
