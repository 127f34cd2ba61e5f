/// The values an object's properties had before the current event changed them: what
/// `changedValuesForCurrentEvent()` reports and what the event's undo restores. One slot per property name of the
/// entity (``SlotTable/position(of:)``), so that recording a value hashes no key and allocates one array per object
/// and event, not a dictionary.
///
/// ```swift
/// var old = EventOldValues()
/// old.record(5, forKey: "rating", in: layout)     // true: the first value of the event is kept
/// old.record(6, forKey: "rating", in: layout)     // false: a later one is not
/// old.dictionary(in: layout)                      // ["rating": 5]
/// ```
struct EventOldValues {
    /// By property position; nil where nothing was recorded. Empty when nothing was.
    private var values: [Any?] = []

    /// Whether no value was recorded in this event.
    var isEmpty: Bool { values.isEmpty }

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
        if values.isEmpty {
            values = Array(repeating: nil, count: layout.slots.count)
        } else if values[position] != nil {
            return false
        }
        values[position] = value()
        return true
    }

    /// The recorded values by property name.
    func dictionary(in layout: EntityLayout) -> [String: Any] {
        var result: [String: Any] = [:]
        for (position, value) in values.enumerated() {
            if let value { result[layout.slots.name(at: position)] = value }
        }
        return result
    }
}
