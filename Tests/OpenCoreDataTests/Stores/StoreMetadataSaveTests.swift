import Foundation
import Testing

@testable import OpenCoreData

/// Metadata set on a store of a coordinator (`setMetadata(_:for:)`, `store.metadata = …`) is written to the store's
/// file by the next save of a context of that coordinator — even a save with no changes. Apple's Core Data Programming
/// Guide: "If you use setMetadata:forPersistentStore:, you must save the store (through a managed object context)
/// before the new metadata is saved"; CoreDataPlus's tests against Apple's framework
/// (`test_InvestigationSettingMetadataFromPersistentStore`) save a context with no changes and read the metadata back
/// from a second container.
@Suite("Store metadata is written by the next save")
struct StoreMetadataSaveTests {
    static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func addStore(_ type: String, at url: URL, to coordinator: NSPersistentStoreCoordinator) throws -> NSPersistentStore {
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
    }

    @Test("setMetadata(_:for:) then a save with no changes: the file has it, for a new coordinator and for metadataForPersistentStore",
          arguments: [NSSQLiteStoreType, NSBinaryStoreType])
    func coordinatorSetMetadataIsWrittenByAnEmptySave(type: String) throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Store.\(type)")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        let store = try Self.addStore(type, at: url, to: coordinator)
        var metadata = coordinator.metadata(for: store)
        metadata["importVersion"] = 3
        coordinator.setMetadata(metadata, for: store)
        // Not written before a save.
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)["importVersion"] == nil)

        let context = Self.context(coordinator)
        try context.performAndWait {
            #expect(!context.hasChanges)
            try context.save()
        }
        let onDisk = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
        #expect((onDisk["importVersion"] as? NSNumber)?.intValue == 3)
        #expect(onDisk[NSStoreUUIDKey] as? String == store.identifier)
        #expect(onDisk[NSStoreModelVersionHashesKey] != nil)

        let second = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        let reopened = try Self.addStore(type, at: url, to: second)
        #expect((second.metadata(for: reopened)["importVersion"] as? NSNumber)?.intValue == 3)
    }

    @Test("store.metadata = … is written by the next save of any context of the coordinator", arguments: [NSSQLiteStoreType, NSBinaryStoreType])
    func storeMetadataIsWrittenByAnEmptySave(type: String) throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Store.\(type)")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        let store = try Self.addStore(type, at: url, to: coordinator)
        var metadata = store.metadata ?? [:]
        metadata["testKey"] = "Test"
        store.metadata = metadata
        let other = Self.context(coordinator)
        try other.performAndWait { try other.save() }
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)["testKey"] as? String == "Test")

        // Later changes are written again; a save of objects writes them too.
        metadata["testKey"] = "Again"
        store.metadata = metadata
        try other.performAndWait {
            other.insertNote("n")
            try other.save()
        }
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)["testKey"] as? String == "Again")
    }

    @Test("a save that writes objects to one store also writes the metadata set on another store of the coordinator")
    func metadataOfAStoreTheSaveDoesNotTouch() throws {
        let directory = try TemporaryDirectory.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        let first = try Self.addStore(NSSQLiteStoreType, at: directory.appendingPathComponent("First.sqlite"), to: coordinator)
        let secondURL = directory.appendingPathComponent("Second.sqlite")
        let second = try Self.addStore(NSSQLiteStoreType, at: secondURL, to: coordinator)
        var metadata = coordinator.metadata(for: second)
        metadata["owner"] = "sync"
        coordinator.setMetadata(metadata, for: second)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let note = context.insertNote("in the first store")
            context.assign(note, to: first)
            try context.save()
        }
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: secondURL)["owner"] as? String == "sync")
    }

    @Test("a child context's save reaches its parent, not the stores: the metadata waits for a save of a context of the coordinator")
    func childContextSavesDoNotWriteMetadata() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Store.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        let store = try Self.addStore(NSSQLiteStoreType, at: url, to: coordinator)
        var metadata = coordinator.metadata(for: store)
        metadata["k"] = "v"
        coordinator.setMetadata(metadata, for: store)
        let parent = Self.context(coordinator)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait { try child.save() }
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)["k"] == nil)
        try parent.performAndWait { try parent.save() }
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)["k"] as? String == "v")
    }
}
