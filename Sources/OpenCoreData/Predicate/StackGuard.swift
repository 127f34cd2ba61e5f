import CMemoryHints
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OpenCoreDataSupport

/// Tells recursive code (the parser, the evaluator) when the current thread's stack is nearly used up, so that hostile
/// nesting ends in a thrown error on any thread — a 512 KiB secondary thread as well as an 8 MiB main thread, in debug
/// builds (where frames are large) as well as in release builds. Where the stack bounds cannot be read, only the
/// fixed depth limits apply.
struct StackGuard {
    /// Bytes kept free below the deepest checked frame, for the calls made between checks.
    static let reserve: UInt = 160 * 1024

    /// The lowest address a checked frame may use; 0 when unknown.
    private let limit: UInt

    init() {
        let here = Self.position()
        guard let low = Self.cachedStackLowAddress(), here > low + Self.reserve else {
            limit = 0
            return
        }
        limit = low + Self.reserve
    }

    /// Runs `body` on a new thread with a large stack and waits for it: for the rare tree that is too deep for the
    /// current thread's stack but must still be printed.
    static func onLargeStack<T>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.value = body()
            done.signal()
        }
        thread.stackSize = 1 << 28
        thread.start()
        done.wait()
        return box.value!
    }

    /// The stack's low address, computed once per thread (reading it can be slow on the main thread).
    private static func cachedStackLowAddress() -> UInt? {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        if let stored = lowAddresses.value {
            let value = UInt(bitPattern: stored)
            return value == 1 ? nil : value
        }
        let low = stackLowAddress()
        lowAddresses.value = UnsafeRawPointer(bitPattern: low ?? 1)
        return low
        #else
        return nil
        #endif
    }

    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    /// Each thread's stack low address (1: unknown), once read.
    private static let lowAddresses = ThreadLocalPointer()
    #endif

    /// Whether there is room for another level of recursion.
    func hasRoom() -> Bool {
        guard limit != 0 else { return true }
        return Self.position() > limit
    }

    /// Where the current call is on the thread's stack. Not the address of a local variable: under AddressSanitizer
    /// that is on a heap-allocated fake frame, and the guard then never saw the stack fill up (a 512 KiB thread
    /// overflowed on nested input that a normal build refuses with an error).
    @inline(__always)
    static func position() -> UInt { UInt(ocd_stack_position()) }

    /// The lowest address of the current thread's stack.
    private static func stackLowAddress() -> UInt? {
        #if canImport(Glibc) || canImport(Musl)
        // pthread_getattr_np is a GNU extension that the Glibc module does not import; look it up at run time.
        typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else { return nil }
        let getAttributes = unsafeBitCast(symbol, to: GetAttributes.self)
        var attributes = pthread_attr_t()
        guard getAttributes(pthread_self(), &attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        var address: UnsafeMutableRawPointer?
        var size = 0
        guard pthread_attr_getstack(&attributes, &address, &size) == 0, let address else { return nil }
        return UInt(bitPattern: address)
        #elseif canImport(Darwin)
        let top = UInt(bitPattern: pthread_get_stackaddr_np(pthread_self()))
        return top - UInt(pthread_get_stacksize_np(pthread_self()))
        #else
        return nil
        #endif
    }
}

/// Carries a result from the large-stack helper thread back to the waiting caller.
private final class ResultBox<T>: @unchecked Sendable { // Written by the helper thread before the semaphore is signalled, read only after.
    var value: T?
}
