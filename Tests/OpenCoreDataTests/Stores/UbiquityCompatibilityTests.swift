import OpenCoreData
import Testing

// Apple's deprecated iCloud ("ubiquitous") store API: it compiles, its options are accepted and ignored, and
// removeUbiquitousContentAndPersistentStore(at:options:) removes the local store (there is no iCloud content on Linux).

/// The deprecated API is used inside a deprecated witness and called through this protocol, so the test target
/// compiles without deprecation warnings (as an app that still carries such code would silence them).
private protocol UbiquityUse {
    func optionKeys() -> [String]
    func transitionTypes() -> [(UInt, UInt?)]
    func importNotificationName() -> NSNotification.Name
    func removeStore(at url: URL) throws
}

private struct DeprecatedUbiquityUse: UbiquityUse {
    @available(*, deprecated)
    func optionKeys() -> [String] {
        [NSPersistentStoreUbiquitousContentNameKey, NSPersistentStoreUbiquitousContentURLKey, NSPersistentStoreUbiquitousContainerIdentifierKey,
         NSPersistentStoreUbiquitousPeerTokenOption, NSPersistentStoreRebuildFromUbiquitousContentOption,
         NSPersistentStoreRemoveUbiquitousMetadataOption, NSPersistentStoreUbiquitousTransitionTypeKey]
    }

    @available(*, deprecated)
    func transitionTypes() -> [(UInt, UInt?)] {
        let cases: [NSPersistentStoreUbiquitousTransitionType] = [.accountAdded, .accountRemoved, .contentRemoved, .initialImportCompleted]
        let unique = Set(cases)   // Hashable, as Apple's
        precondition(unique.count == 4)
        return cases.map { ($0.rawValue, NSPersistentStoreUbiquitousTransitionType(rawValue: $0.rawValue)?.rawValue) }
            + [(99, NSPersistentStoreUbiquitousTransitionType(rawValue: 99)?.rawValue)]
    }

    @available(*, deprecated)
    func importNotificationName() -> NSNotification.Name { .NSPersistentStoreDidImportUbiquitousContentChanges }

    @available(*, deprecated)
    func removeStore(at url: URL) throws {
        try NSPersistentStoreCoordinator.removeUbiquitousContentAndPersistentStore(at: url, options: [NSPersistentStoreUbiquitousContentNameKey: "Moody"])
    }
}

@Suite struct UbiquityCompatibilityTests {
    private let use: any UbiquityUse = DeprecatedUbiquityUse()

    @Test func ubiquityOptionsHaveApplesKeysAndAreIgnoredWhenAddingAStore() throws {
        let keys = use.optionKeys()
        #expect(keys == ["NSPersistentStoreUbiquitousContentNameKey", "NSPersistentStoreUbiquitousContentURLKey",
                         "NSPersistentStoreUbiquitousContainerIdentifierKey", "NSPersistentStoreUbiquitousPeerTokenOption",
                         "NSPersistentStoreRebuildFromUbiquitousContentOption", "NSPersistentStoreRemoveUbiquitousMetadataOption",
                         "com.apple.coredata.ubiquity.transitiontype"])
        let directory = try TemporaryDirectory.make()
        let url = directory.appendingPathComponent("Moody.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
        var options: [String: Any] = [:]
        for key in keys { options[key] = "value" }
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        #expect(store.metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)
    }

    @Test func transitionTypesHaveApplesRawValues() {
        let values = use.transitionTypes()
        #expect(values.map(\.0) == [1, 2, 3, 4, 99])
        #expect(values.map(\.1) == [1, 2, 3, 4, nil])
        #expect(use.importNotificationName().rawValue == "com.apple.coredata.ubiquity.importer.didfinishimport")
    }

    @Test func removingUbiquitousContentRemovesTheLocalStore() throws {
        let directory = try TemporaryDirectory.make()
        let url = directory.appendingPathComponent("Moody.sqlite")
        do {
            let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
            try stack.context.performAndWait {
                let mood = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: stack.context)
                mood.setValue(Date(), forKey: "date")
                try stack.context.save()
            }
            try stack.coordinator.remove(stack.coordinator.persistentStores[0])
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        try use.removeStore(at: url)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        try use.removeStore(at: url)   // nothing left to remove: no error
        // A file that is not a store is refused, not deleted.
        let notAStore = directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: notAStore)
        #expect(throws: NSError.self) { try use.removeStore(at: notAStore) }
        #expect(FileManager.default.fileExists(atPath: notAStore.path))
    }
}
