/// The values an object's properties had before the current event changed them: what
/// `changedValuesForCurrentEvent()` reports and what the event's undo restores. An object keeps two records:
///
/// - ``EventOldAttributes``: what `@Managed` attribute setters record, in stored form, converted only when someone
///   asks. Plain values, so the object keeps it without run-time exclusivity checks (as its attribute values).
/// - ``EventOldValues``: everything else (relationships, transformable attributes, changes made between
///   `willChangeValue` and `didChangeValue`), kept in key-value coding form, one slot per property name of the entity
///   (``SlotTable/position(of:)``).
///
/// The first value recorded for a key in the event wins. A key the setters recorded is not recorded again here; a key
/// recorded here first and by a setter later keeps this record's value (``merged(into:in:)`` writes it last).
///
/// ```swift
/// var old = EventOldValues()
/// let position = layout.slots.position(of: "rating")!
/// old.record(5, at: position, in: layout, besides: EventOldAttributes())     // true: the first value is kept
/// old.record(6, at: position, in: layout, besides: EventOldAttributes())     // false: a later one is not
/// ```
struct EventOldValues {
    /// By property position; nil where nothing was recorded. Empty when nothing was.
    private var values: [Any?] = []

    /// Whether no value was recorded in this event.
    var isEmpty: Bool { values.isEmpty }

    /// Records `value` as the old value of the property at `position` (``SlotTable/position(of:)``) unless one is
    /// recorded already (here or in `attributes`); returns whether it recorded it.
    @discardableResult
    mutating func record(_ value: @autoclosure () -> Any, at position: Int, in layout: EntityLayout, besides attributes: EventOldAttributes) -> Bool {
        if !attributes.isEmpty, let index = layout.slots.plainAttributeIndex(at: position), attributes.hasRecorded(index) { return false }
        if values.isEmpty {
            values = Array(repeating: nil, count: layout.slots.count)
        } else if values[position] != nil {
            return false
        }
        values[position] = value()
        return true
    }

    /// The value recorded for the property at `position`, if any.
    func value(at position: Int) -> Any? {
        position < values.count ? values[position] : nil
    }

    /// Adds the recorded values to `dictionary` by property name (replacing what is there for the same key).
    func merged(into dictionary: inout [String: Any], in layout: EntityLayout) {
        for (position, value) in values.enumerated() {
            if let value { dictionary[layout.slots.name(at: position)] = value }
        }
    }
}

/// The old values `@Managed` setters recorded for plain attributes in the current event (see ``EventOldValues``): the
/// object's attribute array as it was at the first of them (shared with the object until the setter's write copies
/// it, and free for an object whose array its committed snapshot shares anyway), and a bit per recorded attribute
/// slot. Only slots below 64 are recorded here (the setters record the others in ``EventOldValues``).
///
/// ```swift
/// var old = EventOldAttributes()
/// old.record(at: 2, from: object.attributeValues)   // true: slot 2's value is kept
/// old.record(at: 2, from: object.attributeValues)   // false: the first one of the event stays
/// ```
struct EventOldAttributes {
    /// The attribute values when the event's first setter change was recorded; empty until then.
    private var attributes: [StoredValue] = []
    /// Bit `i` set: the old value of attribute slot `i` is `attributes[i]`.
    private var bits: UInt64 = 0

    /// The highest slot (exclusive) recorded here.
    static let slotLimit = 64

    /// Whether no value was recorded in this event.
    var isEmpty: Bool { bits == 0 }

    /// Whether attribute slot `index` has an old value here.
    func hasRecorded(_ index: Int) -> Bool {
        index < Self.slotLimit && bits & (1 << UInt64(index)) != 0
    }

    /// Records the old value of attribute slot `index` (below ``slotLimit``) from `current`, the object's attribute
    /// values before the change, unless one is recorded already; returns whether it recorded it.
    mutating func record(at index: Int, from current: [StoredValue]) -> Bool {
        let bit: UInt64 = 1 << UInt64(index)
        if bits & bit != 0 { return false }
        if bits == 0 {
            attributes = current
        } else if attributes[index] != current[index] {
            // Changed since the first record without being recorded (a primitive setter): keep the value it has now,
            // as recording it at this change would.
            attributes[index] = current[index]
        }
        bits |= bit
        return true
    }

    /// The recorded values by attribute name, in key-value coding form (nil as `NSNull`).
    func dictionary(in layout: EntityLayout) -> [String: Any] {
        var result: [String: Any] = [:]
        var remaining = bits
        while remaining != 0 {
            let index = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            let attribute = layout.attributes[index]
            result[attribute.name] = ValueConversion.kvcValue(attributes[index], for: attribute) ?? ValueConversion.null
        }
        return result
    }
}
