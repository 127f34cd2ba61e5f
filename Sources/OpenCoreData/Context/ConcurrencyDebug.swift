/// The concurrency debug mode (`-com.apple.CoreData.ConcurrencyDebug 1` or
/// `OPENCOREDATA_CONCURRENCY_DEBUG=1`): any use of a context or its objects off the context's queue stops the
/// program with a message naming the context or object.
public enum ConcurrencyDebug {
    /// Whether the mode is on (read once from the launch arguments and environment).
    public static let isEnabled: Bool = {
        if let value = ProcessInfo.processInfo.environment["OPENCOREDATA_CONCURRENCY_DEBUG"], (Int(value) ?? 0) > 0 { return true }
        let arguments = CommandLine.arguments
        if let index = arguments.firstIndex(of: "-com.apple.CoreData.ConcurrencyDebug"), index + 1 < arguments.count {
            return (Int(arguments[index + 1]) ?? 0) > 0
        }
        return false
    }()

    /// Stops the program for an off-queue access.
    static func violation(_ message: String) -> Never {
        preconditionFailure("CoreData concurrency violation: \(message). (Concurrency debug mode is on.)")
    }
}
