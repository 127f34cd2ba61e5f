// Define a managed object class, build its model, open a store, insert, save and fetch.
import OpenCoreData

final class Mood: NSManagedObject {
    @Managed var date: Date
    @Managed var rating: Int16
}

// snippet.hide
func moodModel() -> NSManagedObjectModel {
    let date = NSAttributeDescription()
    date.name = "date"
    date.attributeType = .dateAttributeType
    let rating = NSAttributeDescription()
    rating.name = "rating"
    rating.attributeType = .integer16AttributeType
    rating.defaultValue = 0
    let mood = NSEntityDescription()
    mood.name = "Mood"
    mood.managedObjectClassName = "Mood"
    mood.properties = [date, rating]
    let model = NSManagedObjectModel()
    model.entities = [mood]
    return model
}
// snippet.show

NSManagedObjectModel.registerManagedObjectClasses([Mood.self])
let container = NSPersistentContainer(name: "Moody", managedObjectModel: moodModel())
let description = NSPersistentStoreDescription()
description.type = NSInMemoryStoreType            // a file: NSPersistentStoreDescription(url: url)
container.persistentStoreDescriptions = [description]
container.loadPersistentStores { _, error in
    if let error { fatalError("\(error)") }
}

let context = container.newBackgroundContext()
try context.performAndWait {
    let mood = Mood(context: context)
    mood.date = Date()
    mood.rating = 4
    try context.save()

    let request = NSFetchRequest<Mood>(entityName: "Mood")
    request.predicate = NSPredicate(format: "rating >= %d", 3)
    request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
    print(try context.fetch(request).map(\.rating))   // [4]
}
