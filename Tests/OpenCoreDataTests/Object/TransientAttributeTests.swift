import OpenCoreData
import Testing

// Transient attributes, as Apple's Core Data treats them: in the model, never stored, but otherwise ordinary
// attributes — with default values, change tracking, undo and validation.
//
// - A fetched or faulted-in object's transients start at their default values (the attribute's `defaultValue`),
//   before `awakeFromFetch()`, where Apple tells you to set transient state.
// - `refresh(_:mergeChanges: true)`: "If flag is true, … the object's persistent properties are reloaded and its
//   transient properties are preserved"; with `false` "transient properties are disposed of".
// - Changing one marks the object changed (it is in `updatedObjects`), and a child context's save pushes it, with
//   every other change, into the parent.

/// A sketch: one persistent attribute (`title`) and three transient ones (`status`, `zoom`, `caption`).
final class TransientSketch: NSManagedObject {
    @Managed var title: String?
    /// Transient, required, default 1.5.
    @Managed var zoom: Double
    /// Transient, optional, no default: computed in `awakeFromFetch()` from the title and the `status` transient.
    @Managed var caption: String?
    /// Transient, required, default "draft" (read through key-value coding).
    var status: String? {
        get { value(forKey: "status") as? String }
        set { setValue(newValue, forKey: "status") }
    }

    override func awakeFromFetch() {
        super.awakeFromFetch()
        // Apple's documented place for transient state: change processing is off, the object stays unchanged.
        caption = "\(title ?? "untitled") (\(status ?? "no status"))"
    }
}

private enum SketchModel {
    static let shared: NSManagedObjectModel = {
        NSManagedObjectModel.registerManagedObjectClasses([TransientSketch.self])
        func attribute(_ name: String, _ type: NSAttributeType, transient: Bool = false, optional: Bool = true,
                       default value: Any? = nil) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isTransient = transient
            attribute.isOptional = optional
            attribute.defaultValue = value
            return attribute
        }
        let sketch = NSEntityDescription()
        sketch.name = "Sketch"
        sketch.managedObjectClassName = "TransientSketch"
        sketch.properties = [
            attribute("title", .stringAttributeType),
            attribute("status", .stringAttributeType, transient: true, optional: false, default: "draft"),
            attribute("zoom", .doubleAttributeType, transient: true, optional: false, default: 1.5),
            attribute("caption", .stringAttributeType, transient: true),
        ]
        let model = NSManagedObjectModel()
        model.entities = [sketch]
        return model
    }()
}

/// An SQLite store with one saved sketch titled "Dunes".
private struct SketchStack {
    let coordinator: NSPersistentStoreCoordinator
    let sketchID: NSManagedObjectID

    init() throws {
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: SketchModel.shared)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                           at: URL(fileURLWithPath: try SQLiteTestFiles.newDatabasePath()), options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        sketchID = try context.performAndWait {
            let sketch = TransientSketch(context: context)
            sketch.title = "Dunes"
            sketch.zoom = 9
            sketch.status = "inked"
            try context.save()
            return sketch.objectID
        }
    }

    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    func fetchSketch(in context: NSManagedObjectContext) throws -> TransientSketch {
        let request = NSFetchRequest<TransientSketch>(entityName: "Sketch")
        return try #require(try context.fetch(request).first)
    }
}

@Suite("Transient attributes")
struct TransientAttributeTests {
    @Test func aFetchedObjectsTransientsStartAtTheirDefaultValues() throws {
        let stack = try SketchStack()
        let context = stack.newContext()
        try context.performAndWait {
            let sketch = try stack.fetchSketch(in: context)
            #expect(sketch.zoom == 1.5, "the model's default, not the value another context had")
            #expect(sketch.status == "draft")
            #expect(!sketch.hasChanges)
        }
        let other = stack.newContext()
        other.performAndWait {
            let fault = other.object(with: stack.sketchID) as! TransientSketch
            #expect(fault.isFault)
            #expect(fault.zoom == 1.5, "a fault fired on access gets the defaults too")
            #expect(fault.status == "draft")
        }
    }

    @Test func theDefaultsAreInPlaceBeforeAwakeFromFetchAndItsValuesStand() throws {
        let stack = try SketchStack()
        let context = stack.newContext()
        try context.performAndWait {
            let sketch = try stack.fetchSketch(in: context)
            #expect(sketch.caption == "Dunes (draft)", "awakeFromFetch saw the default status and its caption is kept")
            #expect(!sketch.hasChanges && !context.hasChanges, "transient state set in awakeFromFetch is no change")
        }
    }

    /// The bug this fixes: a required transient read nil after a fetch, so changing anything else and saving failed
    /// with `NSValidationMissingMandatoryPropertyError` (1570).
    @Test func savingAFetchedObjectDoesNotFailOnARequiredTransient() throws {
        let stack = try SketchStack()
        let context = stack.newContext()
        try context.performAndWait {
            let sketch = try stack.fetchSketch(in: context)
            sketch.title = "Dunes at dusk"
            try context.save()
        }
        try context.performAndWait {
            let fault = context.object(with: stack.sketchID) as! TransientSketch
            context.refresh(fault, mergeChanges: false)
            fault.title = "Dunes at night"   // fires the fault: the transients are the defaults again
            try context.save()
        }
    }

    @Test func changingATransientMarksTheObjectChangedButNotItsPersistentValues() throws {
        let stack = try SketchStack()
        let context = stack.newContext()
        try context.performAndWait {
            let sketch = try stack.fetchSketch(in: context)
            sketch.zoom = 3
            #expect(sketch.hasChanges && sketch.isUpdated && context.updatedObjects.contains(sketch))
            #expect(sketch.changedValues().isEmpty, "changedValues() reports persistent properties only")
            try context.save()
            #expect(!sketch.hasChanges)
            #expect(sketch.zoom == 3, "saving keeps the object's transient values")
        }
    }

    @Test func refreshMergingChangesKeepsTransientValues() throws {
        let stack = try SketchStack()
        let context = stack.newContext()
        try context.performAndWait {
            let sketch = try stack.fetchSketch(in: context)
            sketch.zoom = 4
            sketch.status = "reviewing"
            sketch.caption = "mine"
            context.refresh(sketch, mergeChanges: true)
            #expect(sketch.zoom == 4 && sketch.status == "reviewing" && sketch.caption == "mine")
            #expect(sketch.hasChanges, "the transient changes are still unsaved changes")
            // With a persistent change too, and after another context saved a new title.
            sketch.title = "Mine"
            let writer = stack.newContext()
            try writer.performAndWait {
                (try writer.existingObject(with: stack.sketchID) as! TransientSketch).title = "Theirs"
                try writer.save()
            }
            context.refresh(sketch, mergeChanges: true)
            #expect(sketch.title == "Mine" && sketch.zoom == 4 && sketch.status == "reviewing" && sketch.caption == "mine")
        }
    }

    @Test func refreshWithoutMergingDiscardsTransientValues() throws {
        let stack = try SketchStack()
        let context = stack.newContext()
        try context.performAndWait {
            let sketch = try stack.fetchSketch(in: context)
            sketch.zoom = 4
            sketch.status = "reviewing"
            context.refresh(sketch, mergeChanges: false)
            #expect(sketch.isFault)
            #expect(sketch.zoom == 1.5 && sketch.status == "draft", "back to the defaults when the fault fires")
            #expect(sketch.caption == "Dunes (draft)", "and awakeFromFetch ran again")
            #expect(!sketch.hasChanges)
        }
    }

    @Test func rollbackPutsTransientValuesBackAsTheyWereBeforeTheChanges() throws {
        let stack = try SketchStack()
        let context = stack.newContext()
        try context.performAndWait {
            let sketch = try stack.fetchSketch(in: context)
            sketch.zoom = 4
            sketch.caption = "edited"
            sketch.title = "Edited"
            context.rollback()
            #expect(sketch.title == "Dunes")
            #expect(sketch.zoom == 1.5)
            #expect(sketch.caption == "Dunes (draft)", "the value awakeFromFetch gave it, as before the changes")
            #expect(!sketch.hasChanges && !context.hasChanges)
        }
    }

    @Test func aChildSavePushesTransientChangesToItsParent() throws {
        let stack = try SketchStack()
        let parent = stack.newContext()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        let newID = try child.performAndWait {
            // A transient-only change of an existing object, and a new object with transient values.
            let sketch = try child.existingObject(with: stack.sketchID) as! TransientSketch
            #expect(sketch.zoom == 1.5)
            sketch.zoom = 6
            let fresh = TransientSketch(context: child)
            fresh.title = "Fresh"
            fresh.zoom = 2
            fresh.status = "new"
            try child.save()
            #expect(!child.hasChanges)
            return fresh.objectID
        }
        parent.performAndWait {
            let sketch = parent.object(with: stack.sketchID) as! TransientSketch
            #expect(sketch.zoom == 6, "the child's transient change reached the parent")
            #expect(sketch.status == "draft")
            #expect(parent.hasChanges && parent.updatedObjects.contains(sketch))
            let fresh = parent.object(with: newID) as! TransientSketch
            #expect(fresh.isInserted && fresh.zoom == 2 && fresh.status == "new" && fresh.title == "Fresh")
        }
    }

    @Test func aChildSavePushesOnlyTheTransientsTheChildChanged() throws {
        let stack = try SketchStack()
        let parent = stack.newContext()
        try parent.performAndWait {
            let sketch = try parent.existingObject(with: stack.sketchID) as! TransientSketch
            sketch.status = "parent's"
        }
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            let sketch = try child.existingObject(with: stack.sketchID) as! TransientSketch
            sketch.zoom = 7
            try child.save()
        }
        parent.performAndWait {
            let sketch = parent.object(with: stack.sketchID) as! TransientSketch
            #expect(sketch.zoom == 7)
            #expect(sketch.status == "parent's", "a transient the child did not change keeps the parent's value")
        }
    }
}
