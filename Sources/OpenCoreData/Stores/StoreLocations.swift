/// Where stores live that have no file of their own.
///
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
///                                    at: URL(fileURLWithPath: StoreLocations.inMemoryPath), options: nil)
/// ```
enum StoreLocations {
    /// The path of an SQLite store kept in memory (`/dev/null`, as Apple's), where any number of stores may live.
    static let inMemoryPath = "/dev/null"
}
