import Foundation
import OpenCoreData

/// A song, as an app's model code writes it.
final class Song: NSManagedObject {
    @Managed var title: String
    @Managed var plays: Int64
}

/// A one-entity model and stack for the Combine tests.
struct SongStack {
    static let model: NSManagedObjectModel = {
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        title.defaultValue = ""
        let plays = NSAttributeDescription()
        plays.name = "plays"
        plays.attributeType = .integer64AttributeType
        plays.defaultValue = 0
        let song = NSEntityDescription()
        song.name = "Song"
        song.managedObjectClassName = "Song"
        song.properties = [title, plays]
        let model = NSManagedObjectModel()
        model.entities = [song]
        return model
    }()

    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext

    init() throws {
        NSManagedObjectModel.registerManagedObjectClasses([Song.self])
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Inserts and saves a song in `context`.
    @discardableResult
    func insertSong(_ title: String, in context: NSManagedObjectContext) throws -> Song {
        try context.performAndWait {
            let song = Song(context: context)
            song.title = title
            try context.save()
            return song
        }
    }
}

/// Values a sink received on a context's queue, read by the test after.
final class Received<Value>: @unchecked Sendable {
    // @unchecked Sendable: appended under `lock` on the context's queue, read under it by the test.
    private let lock = NSLock()
    private var items: [Value] = []
    func append(_ value: Value) { lock.withLock { items.append(value) } }
    var values: [Value] { lock.withLock { items } }
}
