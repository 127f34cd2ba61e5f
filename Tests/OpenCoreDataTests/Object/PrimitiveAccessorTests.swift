import OpenCoreData
import Testing

// Primitive accessors are not change-tracked, as on Apple's platforms:
// - setPrimitiveValue(_:forKey:) "does not invoke the change notification methods (willChangeValue(forKey:) and
//   didChangeValue(forKey:))"; so a primitive set alone does not make an object changed: `hasChanges` stays false
//   (Apple bug report 15516199 observes it), the object is not in `updatedObjects`, and the value is not saved.
// - `changedValues()` lists what the context tracks as changed since the last fetch or save; on an object the
//   context does not track as changed it is empty (an inserted object's values are all changes).
// - The documented pattern, will/did change around the primitive set, is tracked; `awakeFromInsert()` may set
//   primitives (the object is an insertion, so they are saved); and in `willSave()` of a changed object a primitive
//   set (the usual "updatedAt" stamp) is saved with the object's other changes.

/// A note whose custom setter and lifecycle hooks use primitive accessors, as Apple's documentation writes them.
final class PrimitiveNote: NSManagedObject {
    @Managed var text: String?
    @Managed var createdAt: Date?
    @Managed var updatedAt: Date?

    static let creation = Date(timeIntervalSinceReferenceDate: 1_000)
    static let stamp = Date(timeIntervalSinceReferenceDate: 2_000)

    /// A custom setter: change notifications around the primitive set.
    func setTextWithNotifications(_ newValue: String?) {
        willChangeValue(forKey: "text")
        setPrimitiveValue(newValue, forKey: "text")
        didChangeValue(forKey: "text")
    }

    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Self.creation, forKey: "createdAt")
    }

    override func willSave() {
        super.willSave()
        if isUpdated, primitiveValue(forKey: "updatedAt") as? Date != Self.stamp {
            setPrimitiveValue(Self.stamp, forKey: "updatedAt")
        }
    }
}

private enum PrimitiveNoteModel {
    static let shared: NSManagedObjectModel = {
        NSManagedObjectModel.registerManagedObjectClasses([PrimitiveNote.self])
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        let note = NSEntityDescription()
        note.name = "PrimitiveNote"
        note.managedObjectClassName = "PrimitiveNote"
        note.properties = [attribute("text", .stringAttributeType), attribute("createdAt", .dateAttributeType),
                           attribute("updatedAt", .dateAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [note]
        return model
    }()
}

/// An in-memory store with one saved note, "saved".
private struct NoteStack {
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext
    let note: PrimitiveNote

    init() throws {
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: PrimitiveNoteModel.shared)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        self.context = context
        note = try context.performAndWait {
            let note = PrimitiveNote(context: context)
            note.text = "saved"
            try context.save()
            return note
        }
    }

    /// The note as a new context reads it from the store.
    func stored() throws -> (text: String?, createdAt: Date?, updatedAt: Date?) {
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let id = note.objectID
        return try reader.performAndWait {
            let note = try reader.existingObject(with: id) as! PrimitiveNote
            return (note.text, note.createdAt, note.updatedAt)
        }
    }
}

@Suite("Primitive accessors")
struct PrimitiveAccessorTests {
    @Test func aPrimitiveSetOnAnUnchangedObjectIsNotAChange() throws {
        let stack = try NoteStack()
        let (context, note) = (stack.context, stack.note)
        try context.performAndWait {
            note.setPrimitiveValue("primitive", forKey: "text")
            #expect(note.text == "primitive", "the value is stored in the object")
            #expect(note.changedValues().isEmpty)
            #expect(!note.hasPersistentChangedValues)
            #expect(!note.hasChanges && !note.isUpdated)
            #expect(context.updatedObjects.isEmpty && !context.hasChanges)
            try context.save()
        }
        #expect(try stack.stored().text == "saved", "nothing was saved")
    }

    @Test func aCustomSetterWithChangeNotificationsIsTrackedAndSaved() throws {
        let stack = try NoteStack()
        let (context, note) = (stack.context, stack.note)
        try context.performAndWait {
            note.setTextWithNotifications("custom")
            #expect(note.changedValues()["text"] as? String == "custom")
            #expect(note.hasChanges && note.isUpdated && context.updatedObjects == [note])
            try context.save()
        }
        #expect(try stack.stored().text == "custom")
    }

    @Test func onAChangedObjectChangedValuesListsPrimitiveSetsToo() throws {
        let stack = try NoteStack()
        let (context, note) = (stack.context, stack.note)
        context.performAndWait {
            note.setTextWithNotifications("custom")
            note.setPrimitiveValue(PrimitiveNote.stamp, forKey: "updatedAt")
            #expect(Set(note.changedValues().keys) == ["text", "updatedAt"], "the object differs from its saved values there")
        }
    }

    @Test func primitivesSetInAwakeFromInsertAreSaved() throws {
        let stack = try NoteStack()
        #expect(try stack.stored().createdAt == PrimitiveNote.creation)
        stack.context.performAndWait {
            let fresh = PrimitiveNote(context: stack.context)
            #expect(fresh.changedValues()["createdAt"] as? Date == PrimitiveNote.creation, "an insertion's values are its changes")
            #expect(fresh.hasPersistentChangedValues)
        }
    }

    @Test func aPrimitiveSetInWillSaveOfAChangedObjectIsSaved() throws {
        let stack = try NoteStack()
        let (context, note) = (stack.context, stack.note)
        try context.performAndWait {
            note.text = "edited"
            try context.save()
            #expect(!note.hasChanges)
        }
        let stored = try stack.stored()
        #expect(stored.text == "edited" && stored.updatedAt == PrimitiveNote.stamp)
    }
}
