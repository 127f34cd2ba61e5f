// Contexts on their queues: a background import, the view context, and Swift concurrency.
import OpenCoreData

final class Mood: NSManagedObject {
    @Managed var rating: Int16
}

/// Imports ratings on a private-queue context and returns how many moods the view context then sees.
func importRatings(_ ratings: [Int16], into container: NSPersistentContainer) async throws -> Int {
    let viewContext = container.viewContext
    viewContext.automaticallyMergesChangesFromParent = true

    try await container.performBackgroundTask { context in   // a new private-queue context for the task
        for rating in ratings {
            Mood(context: context).rating = rating
        }
        try context.save()                                    // merged into the view context on its queue
    }

    // Object IDs cross queues; managed objects do not.
    let ids: [NSManagedObjectID] = try await viewContext.perform {
        try viewContext.fetch(NSFetchRequest<Mood>(entityName: "Mood")).map(\.objectID)
    }
    let background = container.newBackgroundContext()
    return try background.performAndWait {
        try ids.map { try background.existingObject(with: $0) }.count
    }
}
