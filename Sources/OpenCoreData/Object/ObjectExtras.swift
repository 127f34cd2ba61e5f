/// The state of a managed object that most objects never need, kept in a box the object makes on first need: an
/// object that only holds attribute values (most fetched and inserted objects) is 32 bytes smaller for it (a
/// 128-byte allocation instead of 160).
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
    /// The old values of the current event that are not in ``EventOldAttributes`` (kept in key-value coding form).
    var eventOldValues = EventOldValues()
    /// The to-many slots whose members changed since the last save.
    var dirtyToManySlots: Set<Int> = []
}

extension NSManagedObject {
    /// The object's extras, made now if it has none.
    private var ensuredExtras: ObjectExtras {
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

    /// The event's old values not kept in stored form (``ObjectExtras/eventOldValues``).
    var eventOldValues: EventOldValues {
        get { extras?.eventOldValues ?? EventOldValues() }
        set { if extras != nil || !newValue.isEmpty { ensuredExtras.eventOldValues = newValue } }
        _modify { yield &ensuredExtras.eventOldValues }
    }

    /// The to-many slots whose members changed since the last save (``ObjectExtras/dirtyToManySlots``).
    var dirtyToManySlots: Set<Int> {
        get { extras?.dirtyToManySlots ?? [] }
        set { if extras != nil || !newValue.isEmpty { ensuredExtras.dirtyToManySlots = newValue } }
        _modify { yield &ensuredExtras.dirtyToManySlots }
    }
}
