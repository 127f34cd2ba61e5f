import Foundation

/// A cross-process, cross-thread lock: `flock(2)` on a file beside the store. Each writer opens the file itself,
/// so two writers of one process exclude each other as two processes do.
final class StressSaveLock {
    private let descriptor: Int32

    init(path: String) {
        descriptor = open(path, O_CREAT | O_RDWR, 0o644)
        precondition(descriptor >= 0, "cannot open the lock file \(path)")
    }

    deinit { close(descriptor) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        while flock(descriptor, LOCK_EX) != 0 { precondition(errno == EINTR, "flock failed: \(errno)") }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
