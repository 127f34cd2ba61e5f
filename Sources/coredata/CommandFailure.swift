import Foundation

/// A failure reported as one line on standard error (`Error: …`) with exit status 1 — never a stack trace.
///
/// ```swift
/// throw CommandFailure(error)   // "Error: Cannot load the model at /tmp/M.xcdatamodel: …"
/// ```
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) {
        description = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// The error's localized description (an NSError's message, not its debug dump).
    init(_ error: Error) {
        self.init((error as NSError).localizedDescription)
    }
}

/// Runs `body`, turning any error into a `CommandFailure`.
func reportingFailures<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let failure as CommandFailure {
        throw failure
    } catch {
        throw CommandFailure(error)
    }
}
