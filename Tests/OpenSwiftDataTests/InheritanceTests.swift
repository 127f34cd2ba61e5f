import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

// Model inheritance (SwiftData, 2025): a `@Model` class may inherit from another; its entity is a subentity of the
// superclass's, fetching the superclass returns the subclasses' instances too ("deep search"), and a subclass's
// fetch returns its own ("shallow search").

@Model class Journey {
    var name: String
    var destination: String
    var nights: Int = 1
    @Relationship(deleteRule: .cascade, inverse: \JourneyLeg.journey) var legs: [JourneyLeg] = []

    init(name: String, destination: String, nights: Int = 1) {
        self.name = name
        self.destination = destination
        self.nights = nights
    }
}

@Model final class BusinessJourney: Journey {
    var perDiem: Double = 0
    var company: String

    init(name: String, destination: String, company: String, perDiem: Double) {
        self.company = company
        self.perDiem = perDiem
        super.init(name: name, destination: destination)
    }
}

@Model class PersonalJourney: Journey {
    enum Reason: String, Codable, CaseIterable { case family, reunion, wellness }
    var reason: Reason

    init(name: String, destination: String, reason: Reason) {
        self.reason = reason
        super.init(name: name, destination: destination, nights: 7)
    }
}

@Model final class JourneyLeg {
    var place: String
    var journey: Journey?

    init(place: String) { self.place = place }
}

@Suite("Inheritance")
struct InheritanceTests {
    static func container(at url: URL? = nil) throws -> ModelContainer {
        let configuration = url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true)
        return try ModelContainer(for: Journey.self, BusinessJourney.self, PersonalJourney.self, configurations: configuration)
    }

    @Test func theSchemaMakesSubentitiesWithTheirOwnProperties() throws {
        let schema = Schema([Journey.self, BusinessJourney.self, PersonalJourney.self])
        let business = try #require(schema.entitiesByName["BusinessJourney"])
        #expect(business.superentityName == "Journey")
        #expect(business.attributes.map(\.name).sorted() == ["company", "perDiem"])
        #expect(schema.entitiesByName["Journey"]?.superentityName == nil)
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: schema))
        let journey = try #require(model.entitiesByName["Journey"])
        #expect(Set(journey.subentities.compactMap(\.name)) == ["BusinessJourney", "PersonalJourney"])
        #expect(model.entitiesByName["BusinessJourney"]?.superentity === journey)
        #expect(model.entitiesByName["PersonalJourney"]?.propertiesByName.keys.sorted() == ["destination", "legs", "name", "nights", "reason"])
    }

    @Test func aSubclassInstanceKeepsEveryValueThroughTheStore() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).appendingPathComponent("journeys.store")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            let context = ModelContext(try Self.container(at: url))
            let summit = BusinessJourney(name: "Summit", destination: "Geneva", company: "Acme", perDiem: 120)
            #expect(summit.company == "Acme" && summit.name == "Summit" && summit.perDiem == 120, "values before insertion")
            summit.legs = [JourneyLeg(place: "Airport")]
            context.insert(summit)
            context.insert(PersonalJourney(name: "Home", destination: "Porto", reason: .family))
            context.insert(Journey(name: "Hike", destination: "Sintra", nights: 2))
            try context.save()
            summit.perDiem = 150
            try context.save()
        }
        let context = ModelContext(try Self.container(at: url))
        let all = try context.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map(\.name) == ["Hike", "Home", "Summit"])
        #expect(all.map { String(describing: type(of: $0)) } == ["Journey", "PersonalJourney", "BusinessJourney"])
        let summit = try #require(all[2] as? BusinessJourney)
        #expect(summit.company == "Acme", "company")
        #expect(summit.perDiem == 150, "perDiem")
        #expect(summit.destination == "Geneva")
        #expect(summit.legs.map(\.place) == ["Airport"])
        #expect(summit.legs.first?.journey === summit)
        #expect((all[1] as? PersonalJourney)?.reason == .family)
        #expect(all[1].nights == 7)
    }

    @Test func aSubclassFetchReturnsItsOwnAndFiltersAndSortsByInheritedProperties() throws {
        let context = ModelContext(try Self.container())
        context.insert(BusinessJourney(name: "Summit", destination: "Geneva", company: "Acme", perDiem: 120))
        context.insert(BusinessJourney(name: "Audit", destination: "Lyon", company: "Acme", perDiem: 90))
        context.insert(PersonalJourney(name: "Home", destination: "Geneva", reason: .reunion))
        context.insert(Journey(name: "Hike", destination: "Geneva"))
        try context.save()
        let business = try context.fetch(FetchDescriptor<BusinessJourney>(sortBy: [SortDescriptor(\.name)]))
        #expect(business.map(\.name) == ["Audit", "Summit"])
        let inGeneva = try context.fetch(FetchDescriptor<BusinessJourney>(predicate: #Predicate { $0.destination == "Geneva" && $0.perDiem > 100 }))
        #expect(inGeneva.map(\.name) == ["Summit"])
        #expect(try context.fetchCount(FetchDescriptor<Journey>(predicate: #Predicate { $0.destination == "Geneva" })) == 3)
        #expect(try context.fetchCount(FetchDescriptor<PersonalJourney>()) == 1)
    }

    @Test func changesToInheritedAndOwnPropertiesAreObservedAndSaved() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        let home = PersonalJourney(name: "Home", destination: "Porto", reason: .family)
        context.insert(home)
        try context.save()
        home.reason = .wellness
        home.destination = "Braga"
        #expect(home.hasChanges)
        try context.save()
        let read = try #require(try ModelContext(container).fetch(FetchDescriptor<PersonalJourney>()).first)
        #expect(read.reason == .wellness && read.destination == "Braga")
    }

    @Test func deletingASubclassInstanceCascadesAsItsSuperclassSays() throws {
        let context = ModelContext(try Self.container())
        let summit = BusinessJourney(name: "Summit", destination: "Geneva", company: "Acme", perDiem: 120)
        summit.legs = [JourneyLeg(place: "Airport"), JourneyLeg(place: "Hotel")]
        context.insert(summit)
        try context.save()
        context.delete(summit)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<JourneyLeg>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Journey>()) == 0)
    }

    @Test func aRelationshipToTheSuperclassHoldsSubclassInstances() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        let legs = [JourneyLeg(place: "Office"), JourneyLeg(place: "Beach"), JourneyLeg(place: "Trail")]
        legs[0].journey = BusinessJourney(name: "Summit", destination: "Geneva", company: "Acme", perDiem: 1)
        legs[1].journey = PersonalJourney(name: "Home", destination: "Porto", reason: .family)
        legs[2].journey = Journey(name: "Hike", destination: "Sintra")
        for leg in legs { context.insert(leg) }
        try context.save()
        let read = try ModelContext(container).fetch(FetchDescriptor<JourneyLeg>(sortBy: [SortDescriptor(\.place)]))
        #expect(read.map { $0.journey.map { String(describing: type(of: $0)) } } == ["PersonalJourney", "BusinessJourney", "Journey"])
        #expect((read[1].journey as? BusinessJourney)?.company == "Acme")
        #expect(read[0].journey?.legs.map(\.place) == ["Beach"], "the inverse, declared on the superclass")
    }

    @Test func anObserverOfTheSuperclassSeesSubclassInstancesArrive() throws {
        let context = ModelContext(try Self.container())
        let observer = try ResultsObserver<Journey, Never>(sortBy: [SortDescriptor(\.name)], modelContext: context)
        context.insert(BusinessJourney(name: "Summit", destination: "Geneva", company: "Acme", perDiem: 1))
        context.insert(Journey(name: "Hike", destination: "Sintra"))
        context.processPendingChanges()
        #expect(observer.results.map(\.name) == ["Hike", "Summit"])
        #expect(observer.results.last is BusinessJourney)
    }

    @Test func theHistoryNamesSubclassInstancesByTheirOwnEntity() throws {
        let container = try Self.container()
        let context = ModelContext(container)
        context.insert(PersonalJourney(name: "Home", destination: "Porto", reason: .family))
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.flatMap(\.changes).map(\.changedPersistentIdentifier.entityName) == ["PersonalJourney"])
    }

    /// `is` in `#Predicate` tests the model's class: the entity or one of its sub-entities, in SQL.
    @Test func aTypeCheckInAPredicateSelectsTheSubclassInstances() throws {
        let context = ModelContext(try Self.container())
        context.insert(PersonalJourney(name: "Home", destination: "Porto", reason: .family))
        context.insert(BusinessJourney(name: "Summit", destination: "Porto", company: "Acme", perDiem: 1))
        context.insert(Journey(name: "Hike", destination: "Sintra"))
        try context.save()
        let byName = [SortDescriptor(\Journey.name)]
        #expect(try context.fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0 is PersonalJourney }, sortBy: byName)).map(\.name) == ["Home"])
        #expect(try context.fetch(FetchDescriptor<Journey>(predicate: #Predicate { !($0 is PersonalJourney) }, sortBy: byName)).map(\.name)
            == ["Hike", "Summit"])
        #expect(try context.fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0.destination == "Porto" && !($0 is BusinessJourney) }))
            .map(\.name) == ["Home"])
        let unsaved = BusinessJourney(name: "Audit", destination: "Lyon", company: "Acme", perDiem: 2)
        context.insert(unsaved)
        #expect(try context.fetchCount(FetchDescriptor<Journey>(predicate: #Predicate { $0 is BusinessJourney })) == 2,
                "pending insertions are tested in memory the same way")
    }
}
