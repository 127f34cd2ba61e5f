import OpenCoreData

// The async/await forms of read and write.
extension DALService {
    /// Runs `statements` on the main context and returns their result.
    ///
    /// For example:
    /// ```swift
    /// let count = try await dal.read { context in User.SK_numberOfEntities(context) }
    /// ```
    public func read<T>(_ statements: @escaping (NSManagedObjectContext) throws -> T) async throws -> T {
        let context = coreDataStack.mainContext
        return try await context.perform(schedule: .enqueued) { () throws -> T in
            try Self.$current.withValue(self) { try statements(context) }
        }
    }

    /// Runs `changes` on a write context, saves them down to the store and returns their result. A save error is
    /// reported through `handleError(_:)` and thrown; an error thrown by `changes` rolls the write back and is
    /// rethrown.
    ///
    /// For example:
    /// ```swift
    /// let id = try await dal.write { context in
    ///     let user = User.SK_create(context)
    ///     try context.obtainPermanentIDs(for: [user])
    ///     return user.objectID
    /// }
    /// ```
    public func write<T>(_ changes: @escaping (NSManagedObjectContext) throws -> T) async throws -> T {
        let context = writeContext()
        let stack = coreDataStack
        stack.writesInFlight.enter()
        let outcome: (value: T, error: NSError?)
        do {
            outcome = try await context.perform(schedule: .enqueued) { () throws -> (value: T, error: NSError?) in
                var value: T?
                let error = try self.saveWrite({ value = try changes($0) }, in: context)
                // `changes` ran without throwing, so `value` is set.
                return (value!, error)
            }
        } catch {
            stack.writesInFlight.leave()
            throw error
        }
        stack.writesInFlight.leave()
        if let error = outcome.error { throw error }
        let saveError: NSError? = await withCheckedContinuation { continuation in
            stack.save { error in continuation.resume(returning: error) }
        }
        if let saveError {
            handleError(saveError)
            throw saveError
        }
        return outcome.value
    }
}
