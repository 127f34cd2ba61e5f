import Foundation
import Testing

@testable import OpenCoreData

// What a change says about its object: the tombstone of a deletion (attributes with
// preservesValueInHistoryOnDeletion) and the updated properties of an update, and how both are stored
// (ACHANGE.ZTOMBSTONE<n> and ZCOLUMNS, OpenCoreData's encoding — DEVIATIONS.md H1).

@Suite("Persistent history: tombstones and updated properties", .timeLimit(.minutes(1)))
struct HistoryTombstoneTests {
    @Test("a deletion's tombstone holds the preserved attributes' last values, and only those")
    func tombstones() throws {
        let stack = try HistoryStack()
        let context = stack.context()
        let (note, bare, folder) = try context.performAndWait {
            let folder = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
            folder.setValue("Inbox", forKey: "name")
            let note = context.insertNote("kept", remoteID: "first", rating: 3)
            note.setValue(folder, forKey: "folder")
            let bare = context.insertNote("no remote id")
            try context.save()
            note.setValue("R-42", forKey: "remoteID")   // the last value is the one preserved
            try context.save()
            context.delete(note)
            context.delete(bare)
            context.delete(folder)
            try context.save()
            return (note.objectID, bare.objectID, folder.objectID)
        }
        let last = try #require(try context.performAndWait { try context.transactions(after: nil) }.last)
        let changes = try #require(last.changes)
        #expect(changes.count == 3 && changes.allSatisfy { $0.changeType == .delete })
        let byID = Dictionary(uniqueKeysWithValues: changes.map { ($0.changedObjectID, $0) })
        let noteTombstone = try #require(byID[note]?.tombstone)
        #expect(noteTombstone.count == 1)
        #expect(noteTombstone["remoteID"] as? String == "R-42")
        #expect(noteTombstone["title"] == nil && noteTombstone["rating"] == nil)
        #expect(byID[folder]?.tombstone?["name"] as? String == "Inbox")
        // A nil preserved value is left out.
        #expect(byID[bare]?.tombstone?.isEmpty ?? true)
        #expect(byID[note]?.updatedProperties == nil)
        // Raw: the value sits in ZTOMBSTONE0 of the delete row.
        let key = try #require(primaryKey(note))
        #expect(try RawSQL.value(stack.url, "SELECT ZTOMBSTONE0 FROM ACHANGE WHERE ZCHANGETYPE = 2 AND ZENTITYPK = \(key) AND ZENTITY = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note')") == .text("R-42"))
        // Inserts and updates have no tombstone.
        let all = try context.performAndWait { try context.transactions(after: nil) }
        #expect(all.dropLast().flatMap { $0.changes ?? [] }.allSatisfy { $0.tombstone == nil })
    }

    @Test("an update lists exactly the properties that changed (attributes and relationships)")
    func updatedProperties() throws {
        let stack = try HistoryStack()
        let context = stack.context()
        let (note, folder) = try context.performAndWait {
            let note = context.insertNote("t", rating: 1)
            let folder = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
            folder.setValue("F", forKey: "name")
            try context.save()
            return (note, folder)
        }
        func lastChanges() throws -> [NSManagedObjectID: NSPersistentHistoryChange] {
            let last = try #require(try context.performAndWait { try context.transactions(after: nil) }.last)
            return Dictionary(uniqueKeysWithValues: (last.changes ?? []).map { ($0.changedObjectID, $0) })
        }
        func names(_ change: NSPersistentHistoryChange?) -> Set<String>? { change?.updatedProperties.map { Set($0.map(\.name)) } }

        try context.performAndWait {
            note.setValue("T", forKey: "title")
            note.setValue(NSNumber(value: 2), forKey: "rating")
            try context.save()
        }
        var changes = try lastChanges()
        #expect(changes.count == 1)
        #expect(changes[note.objectID]?.changeType == .update)
        #expect(names(changes[note.objectID]) == ["title", "rating"])

        // Setting a value to what it already is changes nothing in the store.
        try context.performAndWait {
            note.setValue("T", forKey: "title")
            note.setValue("body text", forKey: "body")
            try context.save()
        }
        changes = try lastChanges()
        #expect(names(changes[note.objectID]) == ["body"])

        // A to-one change updates the note (folder) and, through the inverse, the folder (notes).
        try context.performAndWait {
            note.setValue(folder, forKey: "folder")
            try context.save()
        }
        changes = try lastChanges()
        #expect(names(changes[note.objectID]) == ["folder"])
        #expect(names(changes[folder.objectID]) == ["notes"])

        // The updated properties are the entity's own descriptions.
        let properties = try #require(changes[note.objectID]?.updatedProperties)
        #expect(properties.allSatisfy { $0.entity.name == "Note" })
        #expect(properties.first === note.entity.propertiesByName["folder"])
    }

    @Test("ZCOLUMNS: 4F 43 01, then a bit per stored property in byte-wise name order (DEVIATIONS.md H1)")
    func columnsEncoding() throws {
        let stack = try HistoryStack()
        let context = stack.context()
        try context.performAndWait {
            let note = context.insertNote("t")
            try context.save()
            note.setValue(NSNumber(value: 5), forKey: "rating")
            note.setValue("x", forKey: "title")
            try context.save()
        }
        // Note's stored properties by name: body 0, folder 1, rating 2, remoteID 3, title 4 → bits 2 and 4 = 0x14.
        #expect(try RawSQL.value(stack.url, "SELECT ZCOLUMNS FROM ACHANGE WHERE ZCHANGETYPE = 1") == .blob([0x4F, 0x43, 0x01, 0x14]))
        #expect(try RawSQL.value(stack.url, "SELECT count(*) FROM ACHANGE WHERE ZCHANGETYPE != 1 AND ZCOLUMNS IS NOT NULL") == .integer(0))
    }
}
