extension NSManagedObjectContext {
    /// What a store is told of this context when it reads for it: the query generation it is pinned to (a `.current`
    /// token resolved to the stores' state now), and the context itself for Apple's custom-store API.
    ///
    /// ```swift
    /// let snapshot = try store.snapshot(for: objectID, requestContext: storeReadContext)
    /// ```
    var storeReadContext: StoreRequestContext {
        StoreRequestContext(author: nil, contextName: nil, generation: pinnedGeneration, asker: self)
    }

    /// What a store is told of this context when it writes for it (a save, a batch request): the author and name
    /// persistent history records, and the context itself for Apple's custom-store API. Writes read the current rows.
    var storeWriteContext: StoreRequestContext {
        StoreRequestContext(author: transactionAuthor, contextName: name, generation: nil, asker: self)
    }
}
