import Foundation
import Testing

import OpenCoreData

/// What an observation handler saw, in order (the handler runs on the context's queue; the test reads it after).
private final class ObservedValues<Value>: @unchecked Sendable {
    // @unchecked Sendable: written on the context's queue inside performAndWait, read by the test after it returns.
    var changes: [(old: Value?, new: Value?, prior: Bool)] = []
    var news: [Value?] { changes.filter { !$0.prior }.map(\.new) }
}

/// KVO-style observation of managed objects, written the way an iOS developer writes it with Apple's Core Data
/// (`object.observe(\.key, options:) { object, change in … }` and a kept `NSKeyValueObservation`).
@Suite("Key-value observing of managed objects")
struct KeyValueObservingTests {
    private func insertedMood(in context: NSManagedObjectContext, rating: Int16 = 1) throws -> Mood {
        let mood = Mood(context: context)
        mood.date = Date(timeIntervalSinceReferenceDate: 0)
        mood.rating = rating
        try context.save()
        return mood
    }

    @Test("a setter tells the observer at once, with the old and the new value")
    func setterNotifiesAtOnce() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            let mood = try insertedMood(in: context, rating: 1)
            let log = ObservedValues<Int16>()
            let token = mood.observe(\.rating, options: [.old, .new]) { _, change in
                log.changes.append((change.oldValue, change.newValue, change.isPrior))
                #expect(change.kind == .setting)
            }
            mood.rating = 4
            #expect(log.changes.count == 1)
            #expect(log.changes.first?.old == 1)
            #expect(log.changes.first?.new == 4)
            mood.setValue(Int16(5), forKey: "rating")
            #expect(log.news == [4, 5])
            token.invalidate()
        }
    }

    @Test("without .old or .new the change carries no values; .initial calls the handler at once")
    func optionsShapeTheChange() throws {
        let stack = try MoodyStack()
        try stack.context.performAndWait {
            let mood = try insertedMood(in: stack.context, rating: 2)
            var calls: [NSKeyValueObservedChange<Int16>] = []
            let bare = mood.observe(\.rating) { _, change in calls.append(change) }
            mood.rating = 3
            #expect(calls.count == 1)
            #expect(calls[0].newValue == nil && calls[0].oldValue == nil && !calls[0].isPrior)
            bare.invalidate()

            var initial: [Int16?] = []
            let withInitial = mood.observe(\.rating, options: [.initial, .new]) { _, change in initial.append(change.newValue) }
            #expect(initial == [3])
            mood.rating = 1
            #expect(initial == [3, 1])
            withInitial.invalidate()
        }
    }

    @Test(".prior calls the handler before the change too, with the old value")
    func priorNotification() throws {
        let stack = try MoodyStack()
        try stack.context.performAndWait {
            let mood = try insertedMood(in: stack.context, rating: 2)
            var seen: [String] = []
            let token = mood.observe(\.rating, options: [.prior, .old, .new]) { mood, change in
                seen.append(change.isPrior ? "before \(change.oldValue ?? -1) (now \(mood.rating))" : "after \(change.newValue ?? -1)")
            }
            mood.rating = 5
            #expect(seen == ["before 2 (now 2)", "after 5"])
            _ = token
        }
    }

    @Test("releasing or invalidating the token stops the observation")
    func tokenEndsTheObservation() throws {
        let stack = try MoodyStack()
        try stack.context.performAndWait {
            let mood = try insertedMood(in: stack.context)
            var count = 0
            var token: NSKeyValueObservation? = mood.observe(\.rating) { _, _ in count += 1 }
            mood.rating = 2
            token = nil
            mood.rating = 3
            #expect(count == 1)
            let second = mood.observe(\.rating) { _, _ in count += 10 }
            second.invalidate()
            mood.rating = 4
            #expect(count == 1)
            _ = token
        }
    }

    @Test("a change merged from another context's save reaches the observer, on the observing context's queue")
    func mergedChangeNotifies() throws {
        let stack = try MoodyStack()
        let viewContext = stack.context
        let (mood, id) = try viewContext.performAndWait { () throws -> (Mood, NSManagedObjectID) in
            let mood = try insertedMood(in: viewContext, rating: 1)
            return (mood, mood.objectID)
        }
        let log = ObservedValues<Int16>()
        let token = viewContext.performAndWait {
            mood.observe(\.rating, options: [.old, .new]) { _, change in
                log.changes.append((change.oldValue, change.newValue, change.isPrior))
            }
        }
        let background = stack.newContext()
        let saved = try didSaveNotification(of: background) { context in
            (try context.existingObject(with: id) as? Mood)?.rating = 5
        }
        viewContext.performAndWait { viewContext.mergeChanges(fromContextDidSave: saved) }
        #expect(log.changes.count == 1)
        #expect(log.changes.first?.old == 1)
        #expect(log.changes.first?.new == 5)
        token.invalidate()
    }

    @Test("refresh, rollback and undo tell the observer what the value became")
    func refreshRollbackAndUndoNotify() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let other = stack.newContext()
        let log = ObservedValues<Int16>()
        let mood = try context.performAndWait { try insertedMood(in: context, rating: 1) }
        let id = mood.objectID
        let token = context.performAndWait {
            mood.observe(\.rating, options: [.new]) { _, change in log.changes.append((nil, change.newValue, change.isPrior)) }
        }
        // Another context saves rating 3; a refresh that drops the object's state shows it.
        try other.performAndWait {
            (try other.existingObject(with: id) as? Mood)?.rating = 3
            try other.save()
        }
        context.performAndWait { context.refresh(mood, mergeChanges: false) }
        #expect(log.news == [3])

        // An unsaved change, then rollback: back to the saved 3.
        context.performAndWait { mood.rating = 4 }
        context.performAndWait { context.rollback() }
        #expect(log.news == [3, 4, 3])

        // Undo of a change.
        context.performAndWait {
            context.undoManager = UndoManager()
            mood.rating = 2
            context.processPendingChanges()
            context.undoManager?.undo()
        }
        #expect(log.news.suffix(2) == [2, 3])
        #expect(context.performAndWait { mood.rating } == 3)
        token.invalidate()
    }

    @Test("the other side of a relationship is observed too: setting a mood's country changes the country's moods")
    func inverseRelationshipNotifies() throws {
        let stack = try MoodyStack()
        try stack.context.performAndWait {
            let context = stack.context
            let country = Country(context: context)
            country.numericISO3166Code = 250
            let mood = try insertedMood(in: context)
            var counts: [Int] = []
            let token = country.observe(\.moods, options: [.new]) { _, change in counts.append(change.newValue?.count ?? -1) }
            mood.country = country
            context.processPendingChanges()
            #expect(counts == [1])
            #expect(country.moods.contains(mood))
            token.invalidate()
        }
    }

    @Test("an object not yet in a context is observed too, and keeps being observed once inserted")
    func objectOutsideAContext() throws {
        let stack = try MoodyStack()
        try stack.context.performAndWait {
            let mood = Mood(entity: Mood.entity(), insertInto: nil)
            var news: [Int16?] = []
            let token = mood.observe(\.rating, options: [.new]) { _, change in news.append(change.newValue) }
            mood.rating = 2
            #expect(news == [2])
            stack.context.insert(mood)
            mood.date = Date()
            mood.rating = 3
            #expect(news == [2, 3])
            try stack.context.save()
            token.invalidate()
        }
    }

    /// The way a view model on iOS keeps its observations.
    private final class MoodViewModel {
        private var observations: [NSKeyValueObservation] = []
        private(set) var ratingText = ""
        private(set) var countryCode: Int16?

        init(mood: Mood) {
            observations.append(mood.observe(\.rating, options: [.initial, .new]) { [weak self] mood, _ in
                self?.ratingText = String(repeating: "★", count: Int(mood.rating))
            })
            observations.append(mood.observe(\.country, options: [.initial, .new]) { [weak self] _, change in
                self?.countryCode = (change.newValue ?? nil)?.numericISO3166Code
            })
        }
    }

    @Test("a view model's observations, as iOS code writes them")
    func viewModelStyle() throws {
        let stack = try MoodyStack()
        try stack.context.performAndWait {
            let mood = try insertedMood(in: stack.context, rating: 2)
            let model = MoodViewModel(mood: mood)
            #expect(model.ratingText == "★★")
            #expect(model.countryCode == nil)
            let country = Country(context: stack.context)
            country.numericISO3166Code = 276
            mood.country = country
            mood.rating = 3
            #expect(model.ratingText == "★★★")
            #expect(model.countryCode == 276)
        }
    }
}
