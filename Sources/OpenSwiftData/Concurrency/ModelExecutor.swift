import Dispatch
import Foundation

/// What runs a `@ModelActor`'s jobs and owns its context (SwiftData's `ModelExecutor`).
///
/// ```swift
/// let executor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
/// ```
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context the actor's code uses.
    var modelContext: ModelContext { get }
}

/// A model executor that is a serial executor: the actor's jobs run one at a time.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The executor `@ModelActor` gives each actor: a serial queue of its own, on which every job of the actor runs, and
/// the context those jobs use (SwiftData's `DefaultSerialModelExecutor`).
///
/// ```swift
/// @ModelActor actor Importer {
///     func importTrips(_ names: [String]) throws {
///         for name in names { modelContext.insert(Trip(name: name)) }
///         try modelContext.save()
///     }
/// }
/// ```
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // @unchecked Sendable: `modelContext` is used only by the jobs this executor runs, one at a time on `queue`.

    public let modelContext: ModelContext
    private let queue = DispatchQueue(label: "OpenSwiftData.DefaultSerialModelExecutor")

    /// An executor for the actor that uses `modelContext`.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        modelContext.autosaveRunner = .queue(queue)   // between the actor's jobs, on the queue that runs them
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
