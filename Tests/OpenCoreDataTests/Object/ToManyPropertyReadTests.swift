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

    // An unordered relationship's typed set shares the relationship's own table (no member is hashed again), and
    // stays a value: changing either side afterwards leaves the other as it was.
    @Test func aTypedSetSharesTheRelationshipsTableAndStaysAValue() throws {
        let stack = try MoodyStack()
        let context = stack.context
        // The sharing is an unsafe fast path: with its switch on (and not turned off by another test meanwhile).
        UnsafeFastPathsTests.with(fastPaths: true) { context.performAndWait {
            let france = Country(context: context)
            let moods = (0..<50).map { _ in Mood(context: context) }
            for mood in moods { mood.country = france }
            let read = france.moods
            guard case .toMany(let slot, _)? = france.layout.slots["moods"], case .members(let members) = france.toManyValues[slot] else {
                Issue.record("the relationship is not realized")
                return
            }
            #expect(unsafeBitCast(read, to: UnsafeRawPointer.self) == unsafeBitCast(members.memberSet, to: UnsafeRawPointer.self))
            #expect(moods.allSatisfy { read.contains($0) } && read.count == 50)
            #expect(!read.contains(Mood(context: context)))

            let added = Mood(context: context)
            france.addToMoods(added)
            #expect(read.count == 50 && !read.contains(added), "the relationship's change leaves the earlier read as it was")
            #expect(france.moods.count == 51 && france.moods.contains(added))

            var changed = france.moods
            changed.remove(moods[0])
            changed.insert(Mood(context: context))
            #expect(france.moods.contains(moods[0]) && france.moods.count == 51, "changing the read leaves the relationship as it was")
            #expect(changed.count == 51 && !changed.contains(moods[0]))
        } }
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
