import OpenCoreData
import Synchronization
import Testing

// NSIncrementalStore.loadMetadata(): the hook the coordinator calls when an incremental store is added.

/// A store that keeps its metadata in a property list file at its URL, as an app's store might.
private final class PlistMetadataStore: NSIncrementalStore, @unchecked Sendable {
    // @unchecked Sendable: no state beyond NSPersistentStore's.
    static let typeName = "OpenCoreDataTests.PlistMetadataStore"
    static let loads = Mutex(0)

    override var type: String { Self.typeName }

    override func loadMetadata() throws {
        Self.loads.withLock { $0 += 1 }
        guard let url else { throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreInvalidTypeError) }
        let data = try Data(contentsOf: url)
        guard let stored = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreInvalidTypeError)
        }
        metadata = stored
    }
}

@Suite(.serialized) struct IncrementalStoreLoadMetadataTests {
    @Test func theCoordinatorCallsLoadMetadataWhenAddingTheStore() throws {
        NSPersistentStoreCoordinator.registerStoreClass(PlistMetadataStore.self, forStoreType: PlistMetadataStore.typeName)
        let url = try TemporaryDirectory.make().appendingPathComponent("store.plist")
        let stored: [String: Any] = [NSStoreTypeKey: PlistMetadataStore.typeName, NSStoreUUIDKey: "PLIST-STORE-7", "Owner": "tests"]
        try PropertyListSerialization.data(fromPropertyList: stored, format: .xml, options: 0).write(to: url)
        let loadsBefore = PlistMetadataStore.loads.withLock { $0 }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
        let store = try coordinator.addPersistentStore(ofType: PlistMetadataStore.typeName, configurationName: nil, at: url, options: nil)
        #expect(PlistMetadataStore.loads.withLock { $0 } == loadsBefore + 1)
        #expect(store.identifier == "PLIST-STORE-7")
        #expect(coordinator.metadata(for: store)["Owner"] as? String == "tests")
    }

    @Test func anErrorLoadMetadataThrowsFailsTheAdd() throws {
        NSPersistentStoreCoordinator.registerStoreClass(PlistMetadataStore.self, forStoreType: PlistMetadataStore.typeName)
        let missing = try TemporaryDirectory.make().appendingPathComponent("absent.plist")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
        #expect(throws: (any Error).self) {
            try coordinator.addPersistentStore(ofType: PlistMetadataStore.typeName, configurationName: nil, at: missing, options: nil)
        }
        #expect(coordinator.persistentStores.isEmpty)
    }
}
