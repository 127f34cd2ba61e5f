// SwiftData's API on Linux: a model, a container, an insert, a save and a fetch with #Predicate (SQL underneath).
import OpenSwiftData

@Model final class Trip {
    @Attribute(.unique) var name: String
    var nights: Int
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []

    init(name: String, nights: Int) {
        self.name = name
        self.nights = nights
    }
}

@Model final class Stop {
    var city: String
    var trip: Trip?

    init(city: String) { self.city = city }
}

let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let context = ModelContext(container)
let lisbon = Trip(name: "Lisbon", nights: 4)
lisbon.stops = [Stop(city: "Belém"), Stop(city: "Sintra")]
context.insert(lisbon)
context.insert(Trip(name: "Porto", nights: 2))
try context.save()

let long = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.nights > 3 }, sortBy: [SortDescriptor(\.name)]))
print(long.map(\.name), long.first?.stops.count ?? 0)   // ["Lisbon"] 2
