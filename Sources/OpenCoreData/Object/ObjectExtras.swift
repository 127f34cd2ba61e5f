/// The state of a managed object that most objects never need, kept in a box the object makes on first need.
///
/// It keeps the object a 144-byte allocation (128 bytes of fields), the size it had before it also kept the old
/// attribute values of the event in stored form (``EventOldAttributes``), which made it a 160-byte one. Not smaller:
/// glibc's allocator keeps freed chunks of up to 128 bytes in its fastbins, and 100,000 objects freed by `reset()`
/// and allocated again from them made the to-many traversals 8–13 % slower (RESULTS.md).
///
/// The object reads and changes these through properties of the same names, as if they were its own:
/// ```swift
/// object.dirtyToManySlots.insert(slot)   // makes the box
/// object.committedToMany = [:]           // no box made for an empty value
/// ```
final class ObjectExtras {
    /// The object form of transformable attributes, by attribute slot.
    var transformedValues: [Int: Any] = [:]
    /// The to-many members as the store last had them, for the relationships realized so far.
    var committedToMany: [Int: [NSManagedObjectID]] = [:]
    /// The to-many slots whose members changed since the last save.
    var dirtyToManySlots: Set<Int> = []
    /// The transient attributes changed since the object was last fetched or saved, with the values they had
    /// before (``NSManagedObject/noteTransientChange(at:from:)``).
    var transientsBeforeChanges: [Int: TransientValue] = [:]
    /// The key-value observations of the object (``NSManagedObject/keyValueObservations``).
    var keyValueObservations: [KeyValueObservationRecord] = []
    /// What an observation layer above keeps with the object (``NSManagedObject/_observationStorage``).
    var observationStorage: AnyObject?
}

extension NSManagedObject {
    /// The object's extras, made now if it has none.
    var ensuredExtras: ObjectExtras {
        if let extras { return extras }
        let made = ObjectExtras()
        extras = made
        return made
    }

    /// The object form of transformable attributes, by attribute slot (``ObjectExtras/transformedValues``).
    var transformedValues: [Int: Any] {
        get { extras?.transformedValues ?? [:] }
        set { if extras != nil || !newValue.isEmpty { ensuredExtras.transformedValues = newValue } }
        _modify { yield &ensuredExtras.transformedValues }
    }

    /// The to-many members as the store last had them (``ObjectExtras/committedToMany``).
    var committedToMany: [Int: [NSManagedObjectID]] {
        get { extras?.committedToMany ?? [:] }
        set { if extras != nil || !newValue.isEmpty { ensuredExtras.committedToMany = newValue } }
        _modify { yield &ensuredExtras.committedToMany }
    }

    /// The transient attributes changed since the last fetch or save, with their earlier values
    /// (``ObjectExtras/transientsBeforeChanges``).
    var transientsBeforeChanges: [Int: TransientValue] {
        get { extras?.transientsBeforeChanges ?? [:] }
        set { if extras != nil || !newValue.isEmpty { ensuredExtras.transientsBeforeChanges = newValue } }
        _modify { yield &ensuredExtras.transientsBeforeChanges }
    }

    /// The to-many slots whose members changed since the last save (``ObjectExtras/dirtyToManySlots``).
    var dirtyToManySlots: Set<Int> {
        get { extras?.dirtyToManySlots ?? [] }
        set { if extras != nil || !newValue.isEmpty { ensuredExtras.dirtyToManySlots = newValue } }
        _modify { yield &ensuredExtras.dirtyToManySlots }
    }
}
