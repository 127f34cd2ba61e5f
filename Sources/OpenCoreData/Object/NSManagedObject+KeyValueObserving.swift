// Key-value observing of managed objects, as Swift code on Apple platforms writes it:
//
//     let token = mood.observe(\.rating, options: [.old, .new]) { mood, change in
//         print(change.oldValue, change.newValue)
//     }
//
// Linux Foundation has no key-value observing (no `NSKeyValueObservingOptions`, `NSKeyValueChange`,
// `NSKeyValueObservedChange` nor `NSKeyValueObservation`: checked with Swift 6.3.1), so OpenCoreData declares them with
// Apple's names and shapes, for managed objects (DEVIATIONS.md O21).
//
// What drives it: the object's `willChangeValue(forKey:)`/`didChangeValue(forKey:)` pair (every `@Managed` setter,
// `setValue(_:forKey:)`, relationship setters and mutable set proxies, custom accessors) notifies the observers of
// that key at once, as Apple's KVO does. Every other way a value changes (a merge, a refresh, rollback, the other side
// of a relationship, a later key of a dotted path) is found when the context ends the event: each observed value is
// compared with the one last delivered, just before `ObjectsDidChange` is posted. Handlers run on the context's queue.

import Foundation

/// What a key-value observation delivers (Apple's Foundation type; Linux Foundation lacks it).
///
/// ```swift
/// let token = mood.observe(\.rating, options: [.initial, .old, .new]) { _, change in print(change.newValue ?? 0) }
/// ```
public struct NSKeyValueObservingOptions: OptionSet, Sendable, Hashable {
    /// The options' bits, Apple's values.
    public let rawValue: UInt
    /// Options from their bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Deliver the new value (`change.newValue`).
    public static let new = NSKeyValueObservingOptions(rawValue: 0x01)
    /// Deliver the old value (`change.oldValue`).
    public static let old = NSKeyValueObservingOptions(rawValue: 0x02)
    /// Call the handler once right away, when the observation is made.
    public static let initial = NSKeyValueObservingOptions(rawValue: 0x04)
    /// Call the handler before each change as well as after it (`change.isPrior`).
    public static let prior = NSKeyValueObservingOptions(rawValue: 0x08)
}

/// The kind of a key-value change (Apple's Foundation type; Linux Foundation lacks it).
///
/// ```swift
/// if change.kind == .setting { print("replaced") }
/// ```
public enum NSKeyValueChange: UInt, Sendable, Hashable {
    /// The value was replaced (every change of a managed object's property is reported so).
    case setting = 1
    /// Objects were inserted into a to-many value.
    case insertion = 2
    /// Objects were removed from a to-many value.
    case removal = 3
    /// Objects of a to-many value were replaced.
    case replacement = 4
}

/// One change a key-value observation delivers (Apple's Foundation type; Linux Foundation lacks it).
///
/// ```swift
/// let token = mood.observe(\.rating, options: [.old, .new]) { mood, change in
///     print(change.kind, change.oldValue ?? -1, change.newValue ?? -1)
/// }
/// ```
public struct NSKeyValueObservedChange<Value> {
    /// The kind of a change.
    public typealias Kind = NSKeyValueChange
    /// The kind of change: `.setting` (Core Data reports its properties' changes so).
    public let kind: Kind
    /// The value after the change, when the observation asked for `.new` (nil in a prior notification).
    public let newValue: Value?
    /// The value before the change, when the observation asked for `.old`.
    public let oldValue: Value?
    /// The indexes of an ordered to-many change (always nil: to-many changes are reported as `.setting`).
    public let indexes: IndexSet?
    /// Whether this is the notification sent before the change (`.prior`).
    public let isPrior: Bool
}

extension NSKeyValueObservedChange: Sendable where Value: Sendable {}

/// The token of a key-value observation: it observes until it is released or invalidated (Apple's Foundation type;
/// Linux Foundation lacks it).
///
/// ```swift
/// var token: NSKeyValueObservation? = mood.observe(\.rating) { _, _ in print("changed") }
/// token?.invalidate()   // or: token = nil
/// ```
public final class NSKeyValueObservation: NSObject, @unchecked Sendable {
    // @unchecked Sendable: its one piece of state, the record's validity, is behind the validity's lock.
    private let validity: ObservationValidity

    init(validity: ObservationValidity) { self.validity = validity }

    /// Stops the observation: its handler is not called again. Safe from any thread.
    ///
    /// ```swift
    /// token.invalidate()
    /// ```
    public func invalidate() { validity.invalidate() }

    deinit { validity.invalidate() }
}

/// Key-value observing (Apple's protocol of this name is adopted by `NSObject`; here by `NSManagedObject`).
public protocol _KeyValueCodingAndObserving {}

extension NSManagedObject: _KeyValueCodingAndObserving {}

extension _KeyValueCodingAndObserving where Self: NSManagedObject {
    /// Observes the property at `keyPath` (an attribute, a relationship, or a dotted path through to-one
    /// relationships): `changeHandler` runs on the context's queue after each change — at once for a setter,
    /// `setValue(_:forKey:)` or a relationship change made through this object; when the context ends the event for a
    /// merge, refresh, rollback, the other side of a relationship or a later key of a dotted path. Keep the token:
    /// releasing it or calling `invalidate()` stops the observation.
    ///
    /// For example:
    /// ```swift
    /// let token = mood.observe(\.rating, options: [.old, .new]) { mood, change in
    ///     print("rating \(change.oldValue ?? 0) → \(change.newValue ?? 0)")
    /// }
    /// mood.rating = 4   // prints "rating 0 → 4"
    /// ```
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Value>,
        options: NSKeyValueObservingOptions = [],
        changeHandler: @escaping (Self, NSKeyValueObservedChange<Value>) -> Void
    ) -> NSKeyValueObservation {
        checkObjectConfinement()
        guard let key = Self.keyPathString(for: keyPath) else {
            preconditionFailure("Cannot observe \(keyPath): it names no modeled property of \(Self.self) (observe @Managed properties).")
        }
        let record = TypedKeyValueObservationRecord(object: self, key: key, keyPath: keyPath, options: options, handler: changeHandler)
        if options.contains(.initial) {
            changeHandler(self, NSKeyValueObservedChange(kind: .setting, newValue: options.contains(.new) ? record.lastValue : nil,
                                                         oldValue: nil, indexes: nil, isPrior: false))
        }
        addKeyValueObservation(record)
        return NSKeyValueObservation(validity: record.validity)
    }
}

@_spi(OpenCoreDataObservation)
extension NSManagedObject {
    /// Calls `willChange` before any property of the object changes: before each setter's or key-value coding
    /// change and each change the other side of a relationship makes, and, for a change that came by merge, refresh
    /// or rollback, when the context ends the event. What
    /// `objectWillChange` of Apple's `ObservableObject` conformance is built on (the `OpenCoreDataCombine` product).
    ///
    /// For example:
    /// ```swift
    /// let token = mood._observeAnyChange { _ in publisher.send() }
    /// ```
    public func _observeAnyChange(willChange: @escaping (NSManagedObject) -> Void) -> NSKeyValueObservation {
        checkObjectConfinement()
        let record = AnyChangeObservationRecord(handler: willChange)
        addKeyValueObservation(record)
        return NSKeyValueObservation(validity: record.validity)
    }

    /// One object an observation layer keeps with the managed object, released with it (the `OpenCoreDataCombine`
    /// product keeps the `objectWillChange` publisher here). Read and written on the object's context's queue.
    ///
    /// For example:
    /// ```swift
    /// let publisher = (mood._observationStorage as? ObservableObjectPublisher) ?? makePublisher()
    /// ```
    public var _observationStorage: AnyObject? {
        get { extras?.observationStorage }
        set { if extras != nil || newValue != nil { ensuredExtras.observationStorage = newValue } }
    }
}

extension NSManagedObject {
    /// The object's key-value observations (kept with its rarely needed state, ``ObjectExtras``).
    var keyValueObservations: [KeyValueObservationRecord] {
        get { extras?.keyValueObservations ?? [] }
        set { if extras != nil || !newValue.isEmpty { ensuredExtras.keyValueObservations = newValue } }
    }

    /// Whether anything observes the object (a setter then tells the observers through the will/did pair).
    var hasKeyValueObservers: Bool {
        guard let extras else { return false }
        return !extras.keyValueObservations.isEmpty
    }

    /// Keeps `record` with the object, and makes its context look at the object at the end of each event.
    func addKeyValueObservation(_ record: KeyValueObservationRecord) {
        keyValueObservations.append(record)
        _context?.observeAtEventEnds(self)
    }

    /// The observations still valid (the invalid ones are dropped).
    func liveKeyValueObservations() -> [KeyValueObservationRecord] {
        let all = keyValueObservations
        let live = all.filter { $0.validity.isValid }
        if live.count != all.count { keyValueObservations = live }
        return live
    }

    /// `willChangeValue(forKey:)`: the prior notifications of the observations of `key`.
    func notifyObserversWillChange(_ key: String) {
        for record in liveKeyValueObservations() where record.observes(key) { record.willChange(self) }
    }

    /// The other side of a relationship is about to change this object without a will/did pair (inverse
    /// maintenance): observers of every property are told now; those of one key path compare at the event's end.
    @inline(__always)
    func noteInverseWillChange() {
        guard hasKeyValueObservers else { return }
        for record in liveKeyValueObservations() { record.inverseWillChange(self) }
    }

    /// `didChangeValue(forKey:)`: the change notifications of the observations of `key`.
    func notifyObserversDidChange(_ key: String) {
        for record in liveKeyValueObservations() where record.observes(key) && record.validity.isValid { record.didChange(self) }
    }
}

/// Whether an observation still observes; its token may be released on any thread.
final class ObservationValidity: @unchecked Sendable {
    // @unchecked Sendable: `valid` is read and written only under `lock`.
    private let lock = NSLock()
    private var valid = true
    var isValid: Bool { lock.withLock { valid } }
    func invalidate() { lock.withLock { valid = false } }
}

/// One observation of one object, kept by the object. Used on its context's queue only.
class KeyValueObservationRecord {
    let validity = ObservationValidity()

    /// Whether a change of `key` (a first key, what a setter names) concerns this observation.
    func observes(_ key: String) -> Bool { false }
    /// Before a change of an observed key.
    func willChange(_ object: NSManagedObject) {}
    /// After a change of an observed key.
    func didChange(_ object: NSManagedObject) {}
    /// Before inverse maintenance changes the object (see ``NSManagedObject/noteInverseWillChange()``).
    func inverseWillChange(_ object: NSManagedObject) {}
    /// At the end of an event: notifies what changed without a will/did pair. `changed`: the context refreshed the
    /// object during the event (a merge, `refresh(_:mergeChanges:)`, rollback) or recorded it as updated (also by the
    /// other side of a relationship).
    func reconcile(_ object: NSManagedObject, changed: Bool) {}
}

/// An observation of one key path, with its typed handler and the value last delivered (the next `oldValue`).
final class TypedKeyValueObservationRecord<Root: NSManagedObject, Value>: KeyValueObservationRecord {
    let keyPath: KeyPath<Root, Value>
    let key: String
    let firstKey: Substring
    let options: NSKeyValueObservingOptions
    let handler: (Root, NSKeyValueObservedChange<Value>) -> Void
    /// The value last delivered, typed (the next change's `oldValue`) and in key-value coding form (to find changes
    /// that came without a will/did pair).
    var lastValue: Value
    var lastKVCValue: Any?
    /// Whether the prior notification of the change under way was sent.
    var priorSent = false

    init(object: Root, key: String, keyPath: KeyPath<Root, Value>, options: NSKeyValueObservingOptions,
         handler: @escaping (Root, NSKeyValueObservedChange<Value>) -> Void) {
        self.keyPath = keyPath
        self.key = key
        firstKey = key.split(separator: ".", maxSplits: 1).first ?? Substring(key)
        self.options = options
        self.handler = handler
        lastValue = object[keyPath: keyPath]
        lastKVCValue = object.value(forKeyPath: key)
    }

    override func observes(_ key: String) -> Bool { firstKey == key }

    override func willChange(_ object: NSManagedObject) {
        guard options.contains(.prior), !priorSent, let root = object as? Root else { return }
        priorSent = true
        handler(root, NSKeyValueObservedChange(kind: .setting, newValue: nil, oldValue: options.contains(.old) ? lastValue : nil,
                                               indexes: nil, isPrior: true))
    }

    override func didChange(_ object: NSManagedObject) {
        guard let root = object as? Root else { return }
        priorSent = false
        let old = lastValue
        let new = root[keyPath: keyPath]
        lastValue = new
        lastKVCValue = object.value(forKeyPath: key)
        handler(root, NSKeyValueObservedChange(kind: .setting, newValue: options.contains(.new) ? new : nil,
                                               oldValue: options.contains(.old) ? old : nil, indexes: nil, isPrior: false))
    }

    override func reconcile(_ object: NSManagedObject, changed: Bool) {
        guard !Self.same(object.value(forKeyPath: key), lastKVCValue) else { return }
        willChange(object)
        if validity.isValid { didChange(object) }
    }

    /// Whether two key-value coding values are the same value (managed objects by identity, as Core Data compares).
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        let aNull = a == nil || a is NSNull, bNull = b == nil || b is NSNull
        if aNull || bNull { return aNull && bNull }
        if let x = a as? NSManagedObject { return (b as? NSManagedObject) === x }
        if let x = a as? AnyHashable, let y = b as? AnyHashable { return x == y }
        if let x = a as? NSObject, let y = b as? NSObject { return x.isEqual(y) }
        return false
    }
}

/// An observation of every property of an object, told before each change (``NSManagedObject/_observeAnyChange(willChange:)``):
/// at once for a change through the object or by the other side of a relationship, and at the end of the event for an
/// object the event changed some other way (refreshed, or recorded as updated) and that was not told during it.
final class AnyChangeObservationRecord: KeyValueObservationRecord {
    let handler: (NSManagedObject) -> Void
    /// Whether the handler ran during the current event.
    private var toldInEvent = false

    init(handler: @escaping (NSManagedObject) -> Void) {
        self.handler = handler
    }

    override func observes(_ key: String) -> Bool { true }

    override func willChange(_ object: NSManagedObject) {
        toldInEvent = true
        handler(object)
    }

    override func inverseWillChange(_ object: NSManagedObject) { willChange(object) }

    override func reconcile(_ object: NSManagedObject, changed: Bool) {
        defer { toldInEvent = false }
        if changed && !toldInEvent { handler(object) }
    }
}

/// The objects a context looks at when it ends an event, to tell their observers of changes that came without a
/// will/did pair. Used on the context's queue only.
final class KeyValueObserverTable {
    private struct WeakObject { weak var object: NSManagedObject? }
    private var objects: [ObjectIdentifier: WeakObject] = [:]
    private var isReconciling = false

    func add(_ object: NSManagedObject) { objects[ObjectIdentifier(object)] = WeakObject(object: object) }

    /// Notifies every observed value that changed without a will/did pair during the event. A fault is read first;
    /// an object whose row is gone, or that left the context, is not notified (and is forgotten).
    func reconcile(in context: NSManagedObjectContext, changes: EventChanges) {
        guard !isReconciling else { return }   // a handler that ends an event inside the handler
        isReconciling = true
        defer { isReconciling = false }
        for (id, entry) in objects {
            guard let object = entry.object, object._context === context else {
                objects[id] = nil
                continue
            }
            let live = object.liveKeyValueObservations()
            guard !live.isEmpty else {
                objects[id] = nil
                continue
            }
            if object._isFault {
                guard (try? context.loadValues(into: object, failIfMissing: false)) == true else { continue }
            }
            let changed = changes.refreshed.contains(object) || changes.updated.contains(object)
            for record in live where record.validity.isValid { record.reconcile(object, changed: changed) }
        }
    }
}

extension NSManagedObjectContext {
    /// Makes the context look at `object`'s observed values at the end of each event.
    func observeAtEventEnds(_ object: NSManagedObject) {
        let table = keyValueObservers ?? KeyValueObserverTable()
        keyValueObservers = table
        table.add(object)
    }
}
