// Fetching and writing many objects: batches, prefetching, counts and batch requests.
import OpenCoreData

final class Country: NSManagedObject {
    @Managed var numericISO3166Code: Int16
    @Managed var moods: Set<Mood>
}

final class Mood: NSManagedObject {
    @Managed var rating: Int16
    @Managed var country: Country?
}

func reportRatings(in context: NSManagedObjectContext) throws {
    let request = NSFetchRequest<Country>(entityName: "Country")
    request.sortDescriptors = [NSSortDescriptor(key: "numericISO3166Code", ascending: true)]
    request.fetchBatchSize = 200                                 // rows are read 200 at a time, as they are reached
    request.relationshipKeyPathsForPrefetching = ["moods"]       // one query for every country's moods
    for country in try context.fetch(request) {
        let average = country.moods.isEmpty ? 0 : country.moods.reduce(0) { $0 + Int($1.rating) } / country.moods.count
        print(country.numericISO3166Code, average)
    }
    // A count is one SQL COUNT, no objects.
    print(try context.count(for: NSFetchRequest<Mood>(entityName: "Mood")))
}

/// Writes without managed objects: rows go straight to the store (merge the result into live contexts).
func resetRatings(in context: NSManagedObjectContext, viewContext: NSManagedObjectContext) throws {
    let update = NSBatchUpdateRequest(entityName: "Mood")
    update.propertiesToUpdate = ["rating": 0]
    update.resultType = .updatedObjectIDsResultType
    let result = try context.execute(update) as? NSBatchUpdateResult
    let ids = result?.result as? [NSManagedObjectID] ?? []
    NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [viewContext])

    let insert = NSBatchInsertRequest(entityName: "Mood", objects: (0..<1_000).map { ["rating": $0 % 6] })
    _ = try context.execute(insert)
}
