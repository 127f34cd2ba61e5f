import Foundation
import Testing

@testable import OpenCoreData

// A `@Managed var moods: Set<Mood>` read twice returns the set the first read built (reading Apple's bridged NSSet
// takes no pass over the members either), until the members change.

@Suite("To-many property reads")
struct ToManyPropertyReadTests {
    /// The set the relationship keeps for the property, if any.
    private static func kept(_ country: Country) -> Set<Mood>? {
        guard case .toMany(let slot, _)? = country.layout.slots["moods"], case .members(let members) = country.toManyValues[slot] else { return nil }
        return members.propertySet as? Set<Mood>
    }

    @Test func aReadKeepsItsSetUntilTheMembersChange() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            let france = Country(context: context)
            let first = Mood(context: context)
            first.country = france
            #expect(Self.kept(france) == nil)
            #expect(france.moods == [first])
            #expect(Self.kept(france) == [first], "the read keeps the set it built")
            #expect(france.moods.count == 1)

            let second = Mood(context: context)
            second.country = france
            #expect(Self.kept(france) == nil, "a new member drops it")
            #expect(france.moods == [first, second])
            france.removeFromMoods(first)
            #expect(Self.kept(france) == nil, "so does a removed one")
            #expect(france.moods == [second])

            try context.save()
            context.refresh(france, mergeChanges: false)
            #expect(Self.kept(france) == nil, "a fault keeps nothing")
            #expect(france.moods == [second])
            context.delete(second)
            context.processPendingChanges()
            #expect(france.moods.isEmpty, "a deleted member leaves the relationship and the kept set")
        }
    }

    // The typed set is made from the relationship's members in one step for an unordered relationship (its own set,
    // cast) and member by member for an ordered one; a member of another class makes either give up (the getter then
    // takes the general path, which reports the mismatch).
    @Test func aTypedSetIsMadeOnlyWhenEveryMemberHasTheElementClass() throws {
        let stack = try MoodyStack()
        let context = stack.context
        context.performAndWait {
            let countries = [Country(context: context), Country(context: context)]
            let continent = Continent(context: context)
            let unordered = Set<NSManagedObject>(countries)
            #expect(Set<Country>(managedMembers: unordered) == Set(countries))
            #expect(Set<Country>(managedMembers: countries.map { $0 as NSManagedObject }) == Set(countries))
            #expect(Set<GeographicRegion>(managedMembers: unordered.union([continent])) == Set<GeographicRegion>(countries + [continent]))
            #expect(Set<Country>(managedMembers: unordered.union([continent])) == nil)
            #expect(Set<Country>(managedMembers: [continent] + countries.map { $0 as NSManagedObject }) == nil)
            #expect(Set<Country>(managedMembers: Set<NSManagedObject>()) == [])
        }
    }
}
