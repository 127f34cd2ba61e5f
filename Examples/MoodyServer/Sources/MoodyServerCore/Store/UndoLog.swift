import OpenCoreData
import Synchronization

/// What `POST /undo` needs to bring a deleted mood back: its values, not the object (which is gone from the store).
struct DeletedMood: Sendable {
    let date: Date
    let rating: Int16
    let colors: [MoodColor]?
    let latitude: Double?
    let longitude: Double?
    let country: Int16?
    let continent: Int16?

    /// Reads `mood`'s values (on its context's queue).
    init(_ mood: Mood) {
        date = mood.date
        rating = mood.rating
        colors = mood.colors
        latitude = mood.latitude
        longitude = mood.longitude
        country = mood.country?.numericISO3166Code
        continent = mood.country?.continent?.numericISO3166Code
    }
}

/// The server's undo stack of deletions: last in, first out, at most `capacity` deep, in memory (lost when the
/// server stops). It is read and changed only inside writes (on the writer context's queue), so that it follows
/// the order of the saves; the mutex makes that safe to state to the compiler.
final class UndoLog: Sendable {
    private let entries = Mutex<[DeletedMood]>([])
    let capacity: Int

    init(capacity: Int = 100) {
        self.capacity = capacity
    }

    func push(_ entry: DeletedMood) {
        entries.withLock {
            $0.append(entry)
            if $0.count > capacity { $0.removeFirst($0.count - capacity) }
        }
    }

    var last: DeletedMood? { entries.withLock { $0.last } }

    func dropLast() {
        entries.withLock { _ = $0.popLast() }
    }
}
