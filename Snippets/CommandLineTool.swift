// A command-line program with an async main: a background save merged into the view context on the main queue.
// Top-level `await` makes this an async main, which services the main queue whenever it awaits.
import OpenCoreData

final class Mood: NSManagedObject {
    @Managed var rating: Int16
}

// snippet.hide
let rating = NSAttributeDescription()
rating.name = "rating"
rating.attributeType = .integer16AttributeType
rating.defaultValue = 0
let moodEntity = NSEntityDescription()
moodEntity.name = "Mood"
moodEntity.managedObjectClassName = "Mood"
moodEntity.properties = [rating]
let model = NSManagedObjectModel()
model.entities = [moodEntity]
NSManagedObjectModel.registerManagedObjectClasses([Mood.self])
let memory = NSPersistentStoreDescription()
memory.type = NSInMemoryStoreType
// snippet.show

let container = NSPersistentContainer(name: "Moody", managedObjectModel: model)
container.persistentStoreDescriptions = [memory]
container.loadPersistentStores { _, error in if let error { fatalError("\(error)") } }
let viewContext = container.viewContext
viewContext.automaticallyMergesChangesFromParent = true

try await container.performBackgroundTask { context in
    Mood(context: context).rating = 5
    try context.save()                        // merged into the view context on the main queue
}
let count = try await viewContext.perform {
    try viewContext.count(for: NSFetchRequest<Mood>(entityName: "Mood"))
}
print(count)                                  // 1
