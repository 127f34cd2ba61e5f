/// A transient attribute's value as an object keeps it aside: the stored form, or a transformable's object.
enum TransientValue {
    case stored(StoredValue)
    case object(Any?)
}

/// The values of an object's transient attributes, taken to be put back after its persistent values are reloaded.
struct TransientValues {
    fileprivate var values: [(slot: Int, value: TransientValue)]
}

/// Transient attributes, as Apple's Core Data treats them: in the model but never in a row. Their values are the
/// object's own: they start at the attribute's default value whenever the object's values are loaded (a fetch, a
/// fault firing: before `awakeFromFetch()`, which may set them), are kept by `refresh(_:mergeChanges: true)`, saves
/// and reloads of persistent values, dropped when the object turns into a fault, and put back as they were by
/// `rollback()`.
///
/// ```swift
/// let sketch = try context.fetch(request)[0]
/// sketch.zoom          // 1.5, the attribute's default value
/// ```
extension NSManagedObject {
    /// Gives the transient attributes their default values (called when the object's values are loaded).
    func setTransientsToDefaults() {
        for (slot, value) in layout.transientDefaults { attributeValues[slot] = value }
        for (slot, value) in layout.transformableDefaults where layout.attributeIsTransient[slot] { transformedValues[slot] = value }
    }

    /// The current values of the transient attributes (nil when the entity has none or the object is a fault).
    func transientValues() -> TransientValues? {
        guard layout.hasTransientAttributes, !_isFault else { return nil }
        var values: [(slot: Int, value: TransientValue)] = []
        for (slot, isTransient) in layout.attributeIsTransient.enumerated() where isTransient {
            values.append((slot, transientValue(at: slot)))
        }
        return TransientValues(values: values)
    }

    /// Puts back transient values taken by ``transientValues()``.
    func restoreTransients(_ kept: TransientValues?) {
        guard let kept else { return }
        for (slot, value) in kept.values { setTransientValue(value, at: slot) }
    }

    /// Replaces the object's persistent values with `snapshot` and keeps its transient values (a reload that is no
    /// fetch: the store changed the row, or the context resolves a conflict).
    func applyKeepingTransients(_ snapshot: consuming ObjectSnapshot) {
        let kept = transientValues()
        apply(snapshot)
        restoreTransients(kept)
    }

    /// Records that the transient attribute in `slot` is about to change from `oldValue` (its first change since the
    /// last fetch or save keeps that value, which `rollback()` puts back; a child context's save pushes the
    /// transients so recorded).
    func noteTransientChange(at slot: Int, from oldValue: @autoclosure () -> TransientValue) {
        guard transientsBeforeChanges[slot] == nil else { return }
        transientsBeforeChanges[slot] = oldValue()
    }

    /// ``noteTransientChange(at:from:)`` with the old value in key-value coding form (what `willChangeValue(forKey:)`
    /// captured).
    func noteTransientChange(at slot: Int, fromKVCValue oldValue: Any?) {
        let attribute = layout.attributes[slot]
        noteTransientChange(at: slot, from: attribute.attributeType == .transformableAttributeType
            ? .object(oldValue) : .stored(ValueConversion.storedValue(fromKVC: oldValue, for: attribute) ?? .null))
    }

    /// Puts the transient attributes changed since the last fetch or save back to their earlier values.
    func restoreTransientsBeforeChanges() {
        for (slot, value) in transientsBeforeChanges { setTransientValue(value, at: slot) }
        transientsBeforeChanges = [:]
    }

    /// The slots of the transient attributes changed since the last fetch or save.
    var changedTransientSlots: Dictionary<Int, TransientValue>.Keys { transientsBeforeChanges.keys }

    private func transientValue(at slot: Int) -> TransientValue {
        layout.attributes[slot].attributeType == .transformableAttributeType ? .object(transformedValues[slot]) : .stored(attributeValues[slot])
    }

    private func setTransientValue(_ value: TransientValue, at slot: Int) {
        switch value {
        case .stored(let stored): attributeValues[slot] = stored
        case .object(let object): transformedValues[slot] = object
        }
    }
}
