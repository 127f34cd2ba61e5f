// A managed object class, a model built in code, a container, inserts, a save and a fetch with a predicate.
import OpenCoreData

final class Mood: NSManagedObject {
    @Managed var date: Date
    @Managed var rating: Int16
}

let date = NSAttributeDescription()
date.name = "date"
date.attributeType = .dateAttributeType
let rating = NSAttributeDescription()
rating.name = "rating"
rating.attributeType = .integer16AttributeType
rating.defaultValue = 0
let moodEntity = NSEntityDescription()
moodEntity.name = "Mood"
moodEntity.managedObjectClassName = "Mood"
moodEntity.properties = [date, rating]
let model = NSManagedObjectModel()
model.entities = [moodEntity]
NSManagedObjectModel.registerManagedObjectClasses([Mood.self])

let container = NSPersistentContainer(name: "Moody", managedObjectModel: model)
let description = NSPersistentStoreDescription()
description.type = NSInMemoryStoreType            // a file: NSPersistentStoreDescription(url: url)
container.persistentStoreDescriptions = [description]
container.loadPersistentStores { _, error in
    if let error { fatalError("\(error)") }
}

let context = container.newBackgroundContext()
try context.performAndWait {
    for value: Int16 in [2, 4, 5] {
        let mood = Mood(context: context)
        mood.date = Date()
        mood.rating = value
    }
    try context.save()

    let request = NSFetchRequest<Mood>(entityName: "Mood")
    request.predicate = NSPredicate(format: "rating >= %d", 3)
    request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false)]
    print(try context.fetch(request).map(\.rating))   // [5, 4]
}
