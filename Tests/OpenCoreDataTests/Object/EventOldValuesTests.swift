import Foundation
import Testing

@testable import OpenCoreData

/// Overrides none of the change notifications: its `@Managed` setters record old values in stored form.
private final class Sheet: NSManagedObject {
    @Managed var title: String?
    @Managed var rating: Int64
    @Managed var stamp: Date?
}

/// Seventy attributes (`a0` … `a69`): slots from 64 on keep their old values in converted form.
private final class WideSheet: NSManagedObject {
    @Managed var a1: Int64
    @Managed var a66: Int64
}

/// The old values of the current event, however a change was made: a `@Managed` setter (kept in stored form and
/// converted when asked), `setValue(_:forKey:)` and will/did pairs (kept converted), and primitive setters (not
/// recorded). The first recorded value of a key wins, whichever path recorded it.
@Suite struct EventOldValuesTests {
    private static func model() -> NSManagedObjectModel {
        let sheet = MoodyModelInCode.entity("Sheet")
        sheet.properties = [MoodyModelInCode.attribute("title", .stringAttributeType, optional: true),
                            MoodyModelInCode.attribute("rating", .integer64AttributeType, optional: true),
                            MoodyModelInCode.attribute("stamp", .dateAttributeType, optional: true)]
        let wide = MoodyModelInCode.entity("WideSheet")
        wide.properties = (0..<70).map { MoodyModelInCode.attribute("a\($0)", .integer64AttributeType, optional: true) }
        let model = NSManagedObjectModel()
        model.entities = [sheet, wide]
        return model
    }

    /// Runs `body` on a new context (with an undo manager) holding a saved `Sheet` titled "saved", rated 1.
    private static func withSavedSheet(_ body: (Sheet, NSManagedObjectContext) throws -> Void) throws {
        let model = Self.model()
        let context = try ConformanceStack(.inMemory, model: model).newContext()
        try context.performAndWait {
            context.undoManager = UndoManager()
            let sheet = Sheet(entity: model.entitiesByName["Sheet"]!, insertInto: context)
            sheet.title = "saved"
            sheet.rating = 1
            try context.save()
            context.processPendingChanges()
            context.undoManager?.removeAllActions()
            try body(sheet, context)
        }
    }

    @Test func aSetterKeepsTheFirstOldValueOfTheEvent() throws {
        try Self.withSavedSheet { sheet, context in
            sheet.title = "one"
            sheet.title = "two"
            sheet.rating = 7
            let old = sheet.changedValuesForCurrentEvent()
            #expect(old["title"] as? String == "saved")
            #expect((old["rating"] as? NSNumber)?.int64Value == 1)
            #expect(old.count == 2, "\(old)")
            context.processPendingChanges()
            #expect(sheet.changedValuesForCurrentEvent().isEmpty, "a new event records anew")
            sheet.stamp = Date(timeIntervalSinceReferenceDate: 5)
            #expect(sheet.changedValuesForCurrentEvent()["stamp"] is NSNull, "nil is reported as NSNull")
            #expect(sheet.changedValuesForCurrentEvent().count == 1)
        }
    }

    @Test(arguments: [true, false])
    func theFirstRecordWinsAcrossPaths(setterFirst: Bool) throws {
        try Self.withSavedSheet { sheet, _ in
            if setterFirst {
                sheet.title = "by setter"
                sheet.setValue("by KVC", forKey: "title")
            } else {
                sheet.setValue("by KVC", forKey: "title")
                sheet.title = "by setter"
            }
            #expect(sheet.changedValuesForCurrentEvent()["title"] as? String == "saved")
            #expect(sheet.changedValuesForCurrentEvent().count == 1)
        }
    }

    @Test func aPrimitiveChangeBeforeTheFirstRecordOfAKeyIsItsOldValue() throws {
        try Self.withSavedSheet { sheet, _ in
            sheet.rating = 2   // the first record of the event keeps the attribute values as they are now
            sheet.setPrimitiveValue("primitive", forKey: "title")
            sheet.title = "setter"
            #expect(sheet.changedValuesForCurrentEvent()["title"] as? String == "primitive",
                    "the value just before the key's first recorded change, as the will/did pair records it")
            #expect((sheet.changedValuesForCurrentEvent()["rating"] as? NSNumber)?.int64Value == 1)
        }
    }

    @Test func undoRestoresTheOldValuesSettersRecorded() throws {
        try Self.withSavedSheet { sheet, context in
            sheet.title = "changed"
            sheet.rating = 9
            sheet.title = "changed again"
            context.processPendingChanges()
            context.undo()
            #expect(sheet.title == "saved" && sheet.rating == 1)
            context.redo()
            #expect(sheet.title == "changed again" && sheet.rating == 9)
        }
    }

    @Test func anEntityWithMoreThanSixtyFourAttributesRecordsEveryOne() throws {
        let model = Self.model()
        let context = try ConformanceStack(.inMemory, model: model).newContext()
        try context.performAndWait {
            context.undoManager = UndoManager()
            let sheet = WideSheet(entity: model.entitiesByName["WideSheet"]!, insertInto: context)
            sheet.a1 = 10
            sheet.a66 = 20
            try context.save()
            context.processPendingChanges()
            sheet.a1 = 11
            sheet.a66 = 21
            sheet.a66 = 22
            let old = sheet.changedValuesForCurrentEvent()
            #expect((old["a1"] as? NSNumber)?.int64Value == 10)
            #expect((old["a66"] as? NSNumber)?.int64Value == 20)
            #expect(old.count == 2)
            context.processPendingChanges()
            context.undo()
            #expect(sheet.a1 == 10 && sheet.a66 == 20)
        }
    }
}
