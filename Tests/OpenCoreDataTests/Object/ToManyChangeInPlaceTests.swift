import Foundation
import Testing

@testable import OpenCoreData

// A to-many relationship's member set is changed in place: adding a member (through the relationship's accessors,
// key-value coding, or the inverse to-one that inverse maintenance follows) copies nothing while the set has room.
// A copy of the whole set per change made filling one relationship quadratic (16,000 members took 1.9 s).

@Suite("To-many members change in place")
struct ToManyChangeInPlaceTests {
    /// The address of the storage of a country's member set, the set's capacity and its count (read without the
    /// `moods` property, whose set a later change would have to copy around).
    private static func storage(_ country: Country) throws -> (address: UnsafeRawPointer, capacity: Int, count: Int) {
        guard case .toMany(let slot, _)? = country.layout.slots["moods"], case .members(let members) = country.toManyValues[slot] else {
            throw CocoaError(.coderInvalidValue)
        }
        #expect(MemoryLayout<Set<NSManagedObject>>.size == MemoryLayout<UnsafeRawPointer>.size, "a native set is one reference")
        return (unsafeBitCast(members.memberSet, to: UnsafeRawPointer.self), members.memberSet.capacity, members.count)
    }

    /// Adds 300 moods to a country with `add` and checks that each addition that fits the set's capacity kept its
    /// storage; returns the moods.
    private static func fill(_ france: Country, in context: NSManagedObjectContext, _ add: (Country, Mood) -> Void) throws -> [Mood] {
        var moods: [Mood] = []
        var copies = 0
        let earlier = try storage(france).count
        for _ in 0..<300 {
            let mood = Mood(context: context)
            let before = try storage(france)
            add(france, mood)
            moods.append(mood)
            let after = try storage(france)
            #expect(after.count == before.count + 1)
            if after.count <= before.capacity, after.address != before.address { copies += 1 }
        }
        #expect(copies == 0, "additions within the set's capacity copied it \(copies) times")
        #expect(france.moods.count == earlier + 300 && Set(moods).isSubset(of: france.moods))
        return moods
    }

    @Test(arguments: ["inverse to-one", "accessor", "mutable set"])
    func addingMembersDoesNotCopyTheSet(path: String) throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            let france = Country(context: context)
            _ = france.moods   // realized
            let moods = try Self.fill(france, in: context) { country, mood in
                switch path {
                case "inverse to-one": mood.country = country
                case "accessor": country.addToMoods(mood)
                default: country.mutableSetValue(forKey: "moods").add(mood)
                }
            }
            #expect(moods.allSatisfy { $0.country === france }, "inverse maintenance still sets each mood's country")
        }
    }

    // The event's old value and undo still see the members from before the event, which the first change copied.
    @Test func theEventsOldValueAndUndoKeepTheMembersFromBefore() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            context.undoManager = UndoManager()
            let france = Country(context: context)
            let first = Mood(context: context)
            first.country = france
            context.processPendingChanges()

            let moods = try Self.fill(france, in: context) { country, mood in mood.country = country }
            let old = france.changedValuesForCurrentEvent()["moods"] as? NSSet
            #expect(old?.count == 1 && old?.contains(first) == true)
            france.removeFromMoods(moods[0])
            #expect(!france.moods.contains(moods[0]) && moods[0].country == nil)
            context.processPendingChanges()

            context.undoManager?.undo()
            #expect(france.moods == [first], "undo brings back the members from before the event")
        }
    }
}
