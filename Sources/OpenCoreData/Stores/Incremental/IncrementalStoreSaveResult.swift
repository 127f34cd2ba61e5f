/// What a custom incremental store's `execute(_:with:)` may return for a save request, besides Apple's empty array:
/// the IDs it gave inserted objects while saving, when it chooses its keys only then (OpenSwiftData's adapter of
/// SwiftData's `DataStore`, whose `save(_:)` remaps each inserted model's temporary identifier). The saving context
/// moves each object to its new ID before it posts its save notifications, so every observer sees the final IDs.
///
/// ```swift
/// override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
///     // … write the save; `chosen` is the ID the store gave the object saved as `provisional` …
///     return IncrementalStoreSaveResult(movedObjectIDs: [provisional: chosen])
/// }
/// ```
@_spi(OpenSwiftData)
public struct IncrementalStoreSaveResult {
    /// The ID each inserted object was saved under, mapped to the one the store keeps it under.
    public let movedObjectIDs: [NSManagedObjectID: NSManagedObjectID]

    public init(movedObjectIDs: [NSManagedObjectID: NSManagedObjectID]) {
        self.movedObjectIDs = movedObjectIDs
    }
}
