import Foundation
import OpenCoreData

/// A note: the managed object class of the `CombineNote` entity (names unique in the test process, which links every
/// test target's classes into one registry).
final class CombineNote: NSManagedObject {
    @Managed var title: String
    @Managed var rank: Int64
    @Managed var folder: CombineFolder?
}

/// A folder of notes (the inverse of `CombineNote.folder`).
final class CombineFolder: NSManagedObject {
    @Managed var name: String
    @Managed var notes: Set<CombineNote>
}

/// The notes model, built in code: `CombineFolder` ⟷ `CombineNote`.
enum NotesModel {
    static let shared: NSManagedObjectModel = make()

    private static func make() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, default value: Any?) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = false
            attribute.defaultValue = value
            return attribute
        }
        let note = NSEntityDescription(), folder = NSEntityDescription()
        note.name = "CombineNote"
        note.managedObjectClassName = "CombineNote"
        folder.name = "CombineFolder"
        folder.managedObjectClassName = "CombineFolder"
        let noteFolder = NSRelationshipDescription(), folderNotes = NSRelationshipDescription()
        noteFolder.name = "folder"
        noteFolder.destinationEntity = folder
        noteFolder.maxCount = 1
        noteFolder.isOptional = true
        folderNotes.name = "notes"
        folderNotes.destinationEntity = note
        folderNotes.maxCount = 0
        folderNotes.isOptional = true
        noteFolder.inverseRelationship = folderNotes
        folderNotes.inverseRelationship = noteFolder
        note.properties = [attribute("title", .stringAttributeType, default: ""), attribute("rank", .integer64AttributeType, default: 0), noteFolder]
        folder.properties = [attribute("name", .stringAttributeType, default: ""), folderNotes]
        let model = NSManagedObjectModel()
        model.entities = [note, folder]
        return model
    }
}

/// A coordinator with one store and a private-queue context on it.
struct NotesStack {
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext

    init(storeType: String = NSInMemoryStoreType, url: URL? = nil, options: [AnyHashable: Any]? = nil) throws {
        NSManagedObjectModel.registerManagedObjectClasses([CombineNote.self, CombineFolder.self])
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: NotesModel.shared)
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: options)
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    /// Another private-queue context on the same coordinator.
    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Inserts a note on the context's queue (and saves, unless told not to); returns its ID.
    @discardableResult
    func insertNote(_ title: String, rank: Int64, save: Bool = true, in context: NSManagedObjectContext? = nil) throws -> NSManagedObjectID {
        let context = context ?? self.context
        return try context.performAndWait {
            let note = CombineNote(context: context)
            note.title = title
            note.rank = rank
            if save { try context.save() }
            return note.objectID
        }
    }
}

/// Values a sink collects on a context's queue, read by the test from its own thread.
final class Received<Value>: @unchecked Sendable {
    // @unchecked Sendable: `values` and `completions` are read and written only under `lock`.
    private let lock = NSLock()
    private var storedValues: [Value] = []
    private var storedCompletions: [String] = []

    var values: [Value] { lock.withLock { storedValues } }
    var completions: [String] { lock.withLock { storedCompletions } }
    func append(_ value: Value) { lock.withLock { storedValues.append(value) } }
    func complete(_ description: String) { lock.withLock { storedCompletions.append(description) } }
}

/// Waits (up to `timeout` seconds) until `condition` holds; returns whether it did.
func eventually(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return true
}

/// Lets work already queued on the context's queue run (a `performAndWait` queues behind it).
func drain(_ context: NSManagedObjectContext) {
    context.performAndWait {}
}
