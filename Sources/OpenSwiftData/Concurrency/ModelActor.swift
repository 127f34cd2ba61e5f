import Foundation

/// An actor whose code uses its own ``ModelContext`` (SwiftData's `ModelActor`): what `@ModelActor` makes of an
/// actor. Its jobs run on its ``DefaultSerialModelExecutor``, and its context belongs to it; pass models between
/// actors by ``PersistentIdentifier``.
///
/// ```swift
/// @ModelActor actor Importer {
///     func rename(_ id: PersistentIdentifier, to name: String) throws {
///         guard let trip = self[id, as: Trip.self] else { return }
///         trip.name = name
///         try modelContext.save()
///     }
/// }
/// let importer = Importer(modelContainer: container)
/// try await importer.rename(id, to: "Porto")
/// ```
public protocol ModelActor: Actor {
    /// The container of the actor's context.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that runs the actor and owns its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor runs on its model executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialModelExecutor else {
            preconditionFailure("A ModelActor's executor must be a SerialModelExecutor (DefaultSerialModelExecutor is).")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The actor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model with `id` in the actor's context, if it is a `T` (nil if the row is gone).
    ///
    /// ```swift
    /// let trip = self[id, as: Trip.self]
    /// ```
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.existingModel(for: id) as? T
    }
}
