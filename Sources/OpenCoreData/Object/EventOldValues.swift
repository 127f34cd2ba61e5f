/// The values an object's properties had before the current event changed them: what
/// `changedValuesForCurrentEvent()` reports and what the event's undo restores.
///
/// A `@Managed` attribute setter records its old value without converting or copying it: the first one of the event
/// keeps the object's attribute array as it is (shared with the object until the setter's write copies it, and free
/// for an object whose array is shared with its committed snapshot anyway), and each one sets its attribute's bit.
/// The values are converted to their key-value coding form only when someone asks for them. Other old values
/// (relationships, transformable attributes, changes made between `willChangeValue` and `didChangeValue`) are kept
/// converted, one slot per property name of the entity (``SlotTable/position(of:)``).
///
/// ```swift
/// var old = EventOldValues()
/// old.record(5, forKey: "rating", in: layout)     // true: the first value of the event is kept
/// old.record(6, forKey: "rating", in: layout)     // false: a later one is not
/// old.dictionary(in: layout)                      // ["rating": 5]
/// ```
struct EventOldValues {
    /// The attribute values when the event's first setter change was recorded; empty until then.
    private var attributes: [StoredValue] = []
    /// Bit `i` set: the old value of attribute slot `i` (below 64) is `attributes[i]`.
    private var attributeBits: UInt64 = 0
    /// Old values in key-value coding form, by property position; nil where nothing was recorded. Empty when nothing
    /// was.
    private var values: [Any?] = []

    /// Whether no value was recorded in this event.
    var isEmpty: Bool { attributeBits == 0 && values.isEmpty }

    /// Records `value` as the old value of `key` unless one is recorded already; returns whether it recorded it.
    /// A key that is not a property of `layout`'s entity is ignored (returns false).
    @discardableResult
    mutating func record(_ value: @autoclosure () -> Any, forKey key: String, in layout: EntityLayout) -> Bool {
        guard let position = layout.slots.position(of: key) else { return false }
        return record(value(), at: position, in: layout)
    }

    /// Records `value` as the old value of the property at `position` (``SlotTable/position(of:)``) unless one is
    /// recorded already; returns whether it recorded it.
    @discardableResult
    mutating func record(_ value: @autoclosure () -> Any, at position: Int, in layout: EntityLayout) -> Bool {
        if attributeBits != 0, let index = layout.slots.plainAttributeIndex(at: position), Self.hasBit(index, in: attributeBits) {
            return false
        }
        if values.isEmpty {
            values = Array(repeating: nil, count: layout.slots.count)
        } else if values[position] != nil {
            return false
        }
        values[position] = value()
        return true
    }

    /// Records the old value of the plain attribute at slot `index` (property `position`) from `current`, the
    /// object's attribute values before the change, unless one is recorded already; returns whether it recorded it.
    @discardableResult
    mutating func recordAttribute(at index: Int, position: Int, from current: [StoredValue], in layout: EntityLayout) -> Bool {
        guard index < 64 else {
            return record(ValueConversion.kvcValue(current[index], for: layout.attributes[index]) ?? ValueConversion.null, at: position, in: layout)
        }
        if Self.hasBit(index, in: attributeBits) || (!values.isEmpty && values[position] != nil) { return false }
        if attributeBits == 0 {
            attributes = current
        } else if attributes[index] != current[index] {
            // Changed since the first record without being recorded (a primitive setter): keep the value it has now,
            // as recording it at this change would.
            attributes[index] = current[index]
        }
        attributeBits |= 1 << UInt64(index)
        return true
    }

    /// The recorded values by property name, in key-value coding form (nil as `NSNull`).
    func dictionary(in layout: EntityLayout) -> [String: Any] {
        var result: [String: Any] = [:]
        var bits = attributeBits
        while bits != 0 {
            let index = bits.trailingZeroBitCount
            bits &= bits - 1
            let attribute = layout.attributes[index]
            result[attribute.name] = ValueConversion.kvcValue(attributes[index], for: attribute) ?? ValueConversion.null
        }
        for (position, value) in values.enumerated() {
            if let value { result[layout.slots.name(at: position)] = value }
        }
        return result
    }

    private static func hasBit(_ index: Int, in bits: UInt64) -> Bool {
        index < 64 && bits & (1 << UInt64(index)) != 0
    }
}
