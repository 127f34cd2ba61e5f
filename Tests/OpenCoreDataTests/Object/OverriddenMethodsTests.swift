import Foundation
import Testing

@testable import OpenCoreData

private final class PlainNote: NSManagedObject {}

private class CheckedNote: NSManagedObject {
    var validatedKeys: [String] = []

    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        validatedKeys.append(key)
        try super.validateValue(&value, forKey: key)
    }
}

private final class CheckedNoteSubclass: CheckedNote {}

/// The `@Managed` properties of the notes whose setters are compared.
private protocol NoteFields: NSManagedObject {
    var text: String? { get set }
    var title: String { get set }
    var rating: Int16 { get set }
}

/// `@Managed` setters on these go through the change notifications, which they override.
private class WatchedNote: NSManagedObject, NoteFields {
    @Managed var text: String?
    @Managed var title: String
    @Managed var rating: Int16
    var notifications: [String] = []

    override func willChangeValue(forKey key: String) {
        notifications.append("will \(key)")
        super.willChangeValue(forKey: key)
    }

    override func didChangeValue(forKey key: String) {
        notifications.append("did \(key)")
        super.didChangeValue(forKey: key)
    }
}

private final class WatchedNoteSubclass: WatchedNote {}

/// Reports its own primitive value for `text`, which a change's old value comes from.
private final class RewrittenNote: NSManagedObject {
    @Managed var text: String?

    override func primitiveValue(forKey key: String) -> Any? {
        key == "text" ? "as the override reports it" : super.primitiveValue(forKey: key)
    }
}

/// Overrides nothing: its `@Managed` setters record their changes directly.
private final class DirectNote: NSManagedObject, NoteFields {
    @Managed var text: String?
    @Managed var title: String
    @Managed var rating: Int16
}

/// The overrides of `validateValue(_:forKey:)`, `willChangeValue(forKey:)`, `didChangeValue(forKey:)` and
/// `primitiveValue(forKey:)` are read from the vtable. A save calls `validateValue(_:forKey:)` for every property of a
/// class that overrides it, and skips the call for a property the base implementation would accept when the class
/// does not; a `@Managed` setter calls the change notifications a class overrides, and records its change directly
/// when the class overrides none of them.
@Suite struct OverriddenMethodsTests {
    /// `Note`: `text` (optional, no rules), `title` (required), `rating` (optional, at most 5), `folder` (optional
    /// to-one), and `Folder` with its to-many `notes`.
    private static func model() -> NSManagedObjectModel {
        let note = MoodyModelInCode.entity("Note"), folder = MoodyModelInCode.entity("Folder")
        let rating = MoodyModelInCode.attribute("rating", .integer16AttributeType, optional: true)
        rating.setValidationPredicates([NSPredicate(format: "SELF <= 5")], withValidationWarnings: ["The rating is at most 5."])
        let noteFolder = MoodyModelInCode.relationship("folder", to: folder, toMany: false, optional: true)
        let folderNotes = MoodyModelInCode.relationship("notes", to: note, toMany: true, optional: true)
        MoodyModelInCode.link(noteFolder, folderNotes)
        note.properties = [MoodyModelInCode.attribute("text", .stringAttributeType, optional: true),
                           MoodyModelInCode.attribute("title", .stringAttributeType), rating, noteFolder]
        folder.properties = [MoodyModelInCode.attribute("name", .stringAttributeType, optional: true), folderNotes]
        let model = NSManagedObjectModel()
        model.entities = [note, folder]
        return model
    }

    private static func context(_ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        try ConformanceStack(.inMemory, model: model).newContext()
    }

    /// Runs `body` on a new context's queue with a new `Note` of `noteClass` inserted into it.
    private static func withInsertedNote<Note: NSManagedObject>(_ noteClass: Note.Type,
                                                                _ body: (Note, NSManagedObjectContext) throws -> Void) throws {
        let model = Self.model()
        let context = try Self.context(model)
        try context.performAndWait { try body(noteClass.init(entity: model.entitiesByName["Note"]!, insertInto: context), context) }
    }

    @Test func theOverridesAreReadFromTheVtable() {
        for method in OverriddenMethods.Method.allCases {
            #expect(OverriddenMethods.slotOffsets[method.rawValue] != nil, "the probes single out \(method)'s slot on this runtime")
            #expect(!OverriddenMethods.isOverridden(method, by: NSManagedObject.self))
            #expect(!OverriddenMethods.isOverridden(method, by: PlainNote.self))
            #expect(!OverriddenMethods.isOverridden(method, by: DirectNote.self))
        }
        #expect(OverriddenMethods.isOverridden(.validateValue, by: CheckedNote.self))
        #expect(OverriddenMethods.isOverridden(.validateValue, by: CheckedNoteSubclass.self), "inherited from an overriding superclass")
        #expect(!OverriddenMethods.isOverridden(.willChangeValue, by: CheckedNote.self))
        #expect(OverriddenMethods.isOverridden(.willChangeValue, by: WatchedNoteSubclass.self))
        #expect(OverriddenMethods.isOverridden(.didChangeValue, by: WatchedNote.self))
        #expect(!OverriddenMethods.isOverridden(.primitiveValue, by: WatchedNote.self))
        #expect(OverriddenMethods.isOverridden(.primitiveValue, by: RewrittenNote.self))
        #expect(!OverriddenMethods.isOverridden(.validateValue, by: RewrittenNote.self))
        #expect(OverriddenMethods.tracksChangesLikeTheBaseClass(DirectNote.self))
        #expect(OverriddenMethods.tracksChangesLikeTheBaseClass(CheckedNote.self))
        #expect(!OverriddenMethods.tracksChangesLikeTheBaseClass(WatchedNoteSubclass.self))
        #expect(!OverriddenMethods.tracksChangesLikeTheBaseClass(RewrittenNote.self))
    }

    @Test func aSetterCallsOverriddenChangeNotifications() throws {
        try Self.withInsertedNote(WatchedNoteSubclass.self) { note, _ in
            note.text = "a"
            note.rating = 3
            #expect(note.notifications == ["will text", "did text", "will rating", "did rating"])
            #expect(note.changedValuesForCurrentEvent()["text"] is NSNull)
        }
    }

    @Test func aChangesOldValueComesFromAnOverriddenPrimitiveValue() throws {
        try Self.withInsertedNote(RewrittenNote.self) { note, _ in
            note.text = "new"
            #expect(note.changedValuesForCurrentEvent()["text"] as? String == "as the override reports it")
        }
    }

    /// What the direct path must do as the will/did pair does (the same checks pass for a class that overrides the
    /// notifications): the event's first old value per key, the updated object, undo, nesting inside a pair someone
    /// opened, and no tracking outside a context.
    @Test(arguments: [true, false])
    func aSetterTracksItsChange(direct: Bool) throws {
        if direct { try Self.checkChangeTracking(of: DirectNote.self) } else { try Self.checkChangeTracking(of: WatchedNote.self) }
    }

    private static func checkChangeTracking<Note: NoteFields>(of noteClass: Note.Type) throws {
        let model = Self.model()
        let context = try Self.context(model)
        let entity = model.entitiesByName["Note"]!
        #expect(OverriddenMethods.tracksChangesLikeTheBaseClass(noteClass) == (noteClass == DirectNote.self))
        try context.performAndWait {
            context.undoManager = UndoManager()
            let note = noteClass.init(entity: entity, insertInto: context)
            note.title = "first"
            note.title = "second"
            note.rating = 2
            #expect(note.changedValuesForCurrentEvent()["title"] is NSNull, "the value before the event's first change")
            #expect(note.changedValuesForCurrentEvent()["rating"] is NSNull)
            #expect(note.changedValuesForCurrentEvent().count == 2)
            try context.save()
            context.processPendingChanges()

            note.text = "later"
            note.rating = 4
            #expect(note.isUpdated && context.updatedObjects.contains(note))
            #expect(note.changedValues()["text"] as? String == "later")
            #expect(note.changedValuesForCurrentEvent()["text"] is NSNull)
            #expect((note.changedValuesForCurrentEvent()["rating"] as? NSNumber)?.intValue == 2)
            context.processPendingChanges()
            context.undo()
            #expect(note.text == nil && note.rating == 2, "undo restores the event's old values")

            // Inside a pair the caller opened, the change belongs to that pair.
            note.willChangeValue(forKey: "title")
            note.title = "inside"
            #expect(context.pendingChanges.count == 1)
            note.didChangeValue(forKey: "title")
            #expect(context.pendingChanges.isEmpty)
            #expect(note.changedValuesForCurrentEvent()["title"] as? String == "second")

            let loose = noteClass.init(entity: entity, insertInto: nil)
            loose.title = "no context"
            #expect(loose.title == "no context" && loose.changedValuesForCurrentEvent().isEmpty)
        }
    }

    @Test func anOverrideIsCalledForEveryProperty() throws {
        try Self.withInsertedNote(CheckedNoteSubclass.self) { note, context in
            note.setValue("A title", forKey: "title")
            try context.save()
            #expect(note.validatedKeys == ["text", "title", "rating", "folder"])
        }
    }

    @Test func withoutAnOverrideTheRulesStillHold() throws {
        try Self.withInsertedNote(PlainNote.self) { note, context in
            let missingTitle = #expect(throws: NSError.self) { try context.save() }
            #expect(missingTitle?.code == NSValidationMissingMandatoryPropertyError)
            note.setValue("A title", forKey: "title")
            note.setValue(9, forKey: "rating")
            let tooHigh = #expect(throws: NSError.self) { try context.save() }
            #expect(tooHigh?.domain == NSCocoaErrorDomain && tooHigh?.userInfo[NSValidationKeyErrorKey] as? String == "rating")
            note.setValue(4, forKey: "rating")
            try context.save()
            #expect(!note.hasChanges)
        }
    }
}
