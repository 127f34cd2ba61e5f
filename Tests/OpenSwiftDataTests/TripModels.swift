import Foundation
import OpenSwiftData

// The models the runtime tests use, as an app declares them.

@Model final class Trip {
    @Attribute(.unique, .preserveValueOnDeletion) var name: String
    var start: Date? = nil
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []

    init(name: String, start: Date? = nil) {
        self.name = name
        self.start = start
    }
}

@Model final class Stop {
    var city: String
    var nights = 1
    var trip: Trip?

    init(city: String, nights: Int = 1) {
        self.city = city
        self.nights = nights
        self.trip = nil
    }
}
