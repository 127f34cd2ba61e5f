// Combine with Core Data, as code ported from Apple platforms writes it (`import Combine` becomes
// `import OpenCoreDataCombine`).
import OpenCoreData
import OpenCoreDataCombine

final class Mood: NSManagedObject {
    @Managed var rating: Int16
}

/// Follows a mood, its context's saves and a fetch request's results; cancel by releasing the set.
func follow(_ mood: Mood, in context: NSManagedObjectContext, cancellables: inout Set<AnyCancellable>) {
    NotificationCenter.default.publisher(for: .NSManagedObjectContextDidSave, object: context)
        .sink { notification in print("saved:", notification.userInfo?.keys.count ?? 0, "kinds of change") }
        .store(in: &cancellables)
    mood.objectWillChange
        .sink { print("mood will change") }
        .store(in: &cancellables)
    mood.publisher(for: \.rating)
        .sink { print("rating", $0) }
        .store(in: &cancellables)

    let request = NSFetchRequest<Mood>(entityName: "Mood")
    request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false)]
    context.fetchedResultsPublisher(for: request)
        .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.count, "moods") })
        .store(in: &cancellables)
}
