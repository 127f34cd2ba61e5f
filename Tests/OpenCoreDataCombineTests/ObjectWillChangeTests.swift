import Testing

import OpenCoreData
import OpenCoreDataCombine

/// Counts `objectWillChange` emissions of any observable object (as SwiftUI's observation of an `ObservableObject`).
private func countWillChange<Object: ObservableObject>(of object: Object, _ count: @escaping () -> Void) -> AnyCancellable {
    object.objectWillChange.sink { _ in count() }
}

/// `NSManagedObject` as an `ObservableObject`: `objectWillChange` fires before any property changes.
@Suite("Combine: objectWillChange of managed objects")
struct ObjectWillChangeTests {
    @Test("fires before a setter's change (the old value is still there), for every property; cancel stops it")
    func firesBeforeSetters() throws {
        let stack = try NotesStack()
        let context = stack.context
        context.performAndWait {
            let note = CombineNote(context: context)
            note.rank = 1
            var seen: [Int64] = []
            let cancellable = note.objectWillChange.sink { seen.append(note.rank) }
            note.rank = 2
            #expect(seen == [1])
            note.title = "t"
            note.setValue(Int64(9), forKey: "rank")
            #expect(seen == [1, 2, 2])
            cancellable.cancel()
            note.rank = 3
            #expect(seen.count == 3)
        }
    }

    @Test("NSManagedObject is an ObservableObject; objectWillChange is one ObservableObjectPublisher whose send() reaches subscribers")
    func observableObjectConformance() throws {
        let stack = try NotesStack()
        let context = stack.context
        context.performAndWait {
            let note = CombineNote(context: context)
            var count = 0
            let cancellable = countWillChange(of: note) { count += 1 }
            let publisher: ObservableObjectPublisher = note.objectWillChange
            #expect(publisher === note.objectWillChange)
            note.objectWillChange.send()
            #expect(count == 1)
            note.title = "changed"
            #expect(count == 2)
            let other = CombineNote(context: context)
            #expect(other.objectWillChange !== note.objectWillChange)
            cancellable.cancel()
        }
    }

    @Test("a relationship setter fires for the object whose setter runs")
    func relationshipSetter() throws {
        let stack = try NotesStack()
        let context = stack.context
        context.performAndWait {
            let note = CombineNote(context: context), folder = CombineFolder(context: context)
            var seen: [String?] = []
            let cancellable = note.objectWillChange.sink { seen.append(note.folder?.name) }
            folder.name = "Inbox"
            note.folder = folder
            #expect(seen == [nil])
            cancellable.cancel()
        }
    }

    @Test("the inverse side of a relationship change fires too, when the event ends")
    func inverseSide() throws {
        let stack = try NotesStack()
        let context = stack.context
        context.performAndWait {
            let note = CombineNote(context: context), folder = CombineFolder(context: context)
            var folderCount = 0
            let cancellable = folder.objectWillChange.sink { folderCount += 1 }
            note.folder = folder
            context.processPendingChanges()
            #expect(folderCount == 1)
            cancellable.cancel()
        }
    }

    @Test("a change merged from another context's save fires (when the merge's event ends)")
    func mergedChangeFires() throws {
        let stack = try NotesStack()
        let context = stack.context, other = stack.newContext()
        let id = try stack.insertNote("old", rank: 1)
        let fired = Received<String>()
        let kept = Received<CombineNote>()   // the app's reference: a context does not keep unchanged objects alive
        let cancellable = try context.performAndWait {
            let note = try #require(context.existingObject(with: id) as? CombineNote)
            kept.append(note)
            return note.objectWillChange.sink { fired.append("will change") }
        }
        let saved = Received<Notification>()
        let saves = NotificationCenter.default.publisher(for: .NSManagedObjectContextDidSave, object: other).sink { saved.append($0) }
        try other.performAndWait {
            let note = try #require(other.existingObject(with: id) as? CombineNote)
            note.title = "new"
            try other.save()
        }
        let didSave = try #require(saved.values.first)
        #expect(fired.values.isEmpty)
        context.performAndWait { context.mergeChanges(fromContextDidSave: didSave) }
        // Apple's fires before the merged value is in; this one when the merge's event ends (DEVIATIONS.md O24).
        #expect(fired.values == ["will change"])
        saves.cancel()
        cancellable.cancel()
    }
}
