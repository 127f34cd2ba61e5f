import Foundation

/// The stores OpenCoreData ships, as the coordinator's registry starts out (Apple's type strings to the classes): the
/// only place that names the concrete store classes for the layers above `Stores/`.
///
/// ```swift
/// BuiltInStores.classes[NSSQLiteStoreType]   // the SQLite store's class
/// ```
enum BuiltInStores {
    /// The built-in store classes by type string.
    static var classes: [String: NSPersistentStore.Type] {
        [NSInMemoryStoreType: InMemoryStore.self, NSSQLiteStoreType: SQLiteStore.self, NSBinaryStoreType: BinaryStore.self]
    }
}
