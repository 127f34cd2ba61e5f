extension NSPersistentStoreCoordinator {
    /// Adds the store `storeDescription` describes — its type, configuration, URL and options — and calls `block`
    /// with the description and the error, if adding failed (for example `NSPersistentStoreIncompatibleVersionHashError`,
    /// 134100, when the store was written with another model version).
    ///
    /// The store is added on the calling thread, and `block` called there before this method returns, unless the
    /// description's `shouldAddStoreAsynchronously` is true: then both happen on a background queue.
    ///
    /// For example:
    /// ```swift
    /// coordinator.addPersistentStore(with: NSPersistentStoreDescription(url: storeURL)) { description, error in
    ///     if let error { print("cannot open \(description.url!): \(error)") }
    /// }
    /// ```
    public func addPersistentStore(with storeDescription: NSPersistentStoreDescription, completionHandler block: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void) {
        let add = {
            do {
                try self.addPersistentStore(ofType: storeDescription.type, configurationName: storeDescription.configuration,
                                            at: storeDescription.url, options: storeDescription.storeOptions)
                block(storeDescription, nil)
            } catch {
                block(storeDescription, error)
            }
        }
        if storeDescription.shouldAddStoreAsynchronously {
            let work = UncheckedSendableBox(add)
            DispatchQueue.global(qos: .userInitiated).async { work.value() }
        } else {
            add()
        }
    }
}

extension NSPersistentStoreDescription {
    /// The options in the form `addPersistentStore(ofType:configurationName:at:options:)` takes.
    var storeOptions: [AnyHashable: Any] {
        var result: [AnyHashable: Any] = [:]
        for (key, value) in options { result[key] = value }
        return result
    }
}
