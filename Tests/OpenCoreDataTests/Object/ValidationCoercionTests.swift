import OpenCoreData
import Testing

/// A value that is `Equatable` but not `Hashable`, as many transformable values are.
private struct Swatch: Equatable {
    var hue: UInt8
}

/// Stores `[Swatch]` as one byte per swatch.
private final class SwatchesTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        (value as? [Swatch]).map { Data($0.map(\.hue)) }
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        (value as? Data).map { $0.map { Swatch(hue: $0) } }
    }
}

/// Validation before a save may coerce a value (`validateValue(_:forKey:)` replaces it); an unchanged value must not
/// count as a change, or every save reports the object as updated a second time.
@Suite struct ValidationCoercionTests {
    @Test func savingAnUnchangedTransformableValueIsNotAnotherChange() throws {
        ValueTransformer.setValueTransformer(SwatchesTransformer(), forName: NSValueTransformerName("SwatchesTransformer"))
        let palette = NSEntityDescription()
        palette.name = "Palette"
        let swatches = NSAttributeDescription()
        swatches.name = "swatches"
        swatches.attributeType = .transformableAttributeType
        swatches.valueTransformerName = "SwatchesTransformer"
        swatches.isOptional = true
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        name.isOptional = true
        palette.properties = [swatches, name]
        let model = NSManagedObjectModel()
        model.entities = [palette]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Palette", into: context)
            object.setValue([Swatch(hue: 1), Swatch(hue: 2)], forKey: "swatches")
            try context.save()
            object.setValue("warm", forKey: "name")
            context.processPendingChanges()

            final class Count: @unchecked Sendable { var updates = 0 }   // written by the observer on this queue, read after
            let count = Count()
            let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { note in
                count.updates += (note.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>)?.count ?? 0
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            try context.save()
            context.processPendingChanges()
            #expect(count.updates == 0)
            #expect(!object.hasChanges)
            #expect(object.value(forKey: "swatches") as? [Swatch] == [Swatch(hue: 1), Swatch(hue: 2)])
        }
    }
}
