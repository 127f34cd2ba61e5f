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

/// A save calls `validateValue(_:forKey:)` for every property of a class that overrides it, and skips the call for a
/// property the base implementation would accept when the class does not: the override is read from the vtable.
@Suite struct ValidateValueOverrideTests {
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

    @Test func theOverrideIsReadFromTheVtable() {
        #expect(ValidateValueOverride.slotOffset != nil, "the probes single out validateValue's slot on this runtime")
        #expect(!ValidateValueOverride.isOverridden(by: NSManagedObject.self))
        #expect(!ValidateValueOverride.isOverridden(by: PlainNote.self))
        #expect(ValidateValueOverride.isOverridden(by: CheckedNote.self))
        #expect(ValidateValueOverride.isOverridden(by: CheckedNoteSubclass.self), "inherited from an overriding superclass")
    }

    @Test func anOverrideIsCalledForEveryProperty() throws {
        let model = Self.model()
        let context = try Self.context(model)
        try context.performAndWait {
            let note = CheckedNoteSubclass(entity: model.entitiesByName["Note"]!, insertInto: context)
            note.setValue("A title", forKey: "title")
            try context.save()
            #expect(note.validatedKeys == ["text", "title", "rating", "folder"])
        }
    }

    @Test func withoutAnOverrideTheRulesStillHold() throws {
        let model = Self.model()
        let context = try Self.context(model)
        try context.performAndWait {
            let note = PlainNote(entity: model.entitiesByName["Note"]!, insertInto: context)
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
