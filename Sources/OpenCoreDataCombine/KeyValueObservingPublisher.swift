import Foundation
import OpenCoreData
import OpenCombine

extension NSObject {
    /// A publisher of the values of a managed object's property (Apple's `NSObject.KeyValueObservingPublisher`, for
    /// managed objects), made by `publisher(for:options:)`. Built on `observe(_:options:changeHandler:)`: it emits on the
    /// object's context's queue; subscribe there.
    ///
    /// ```swift
    /// let publisher: NSObject.KeyValueObservingPublisher<Mood, Int16> = mood.publisher(for: \.rating)
    /// ```
    public struct KeyValueObservingPublisher<Subject: NSManagedObject, Value>: OpenCombine.Publisher {
        /// The values of the property.
        public typealias Output = Value
        /// It never fails.
        public typealias Failure = Never

        /// The observed object.
        public let object: Subject
        /// The observed property.
        public let keyPath: KeyPath<Subject, Value>
        /// The observation's options: `.initial` emits the current value first, `.prior` the value before each change
        /// too (`.new` and `.old` make no difference: the value is emitted).
        public let options: NSKeyValueObservingOptions

        /// A publisher of `object`'s values at `keyPath`.
        ///
        /// ```swift
        /// let ratings = NSObject.KeyValueObservingPublisher(object: mood, keyPath: \.rating, options: [.new])
        /// ```
        public init(object: Subject, keyPath: KeyPath<Subject, Value>, options: NSKeyValueObservingOptions) {
            self.object = object
            self.keyPath = keyPath
            self.options = options
        }

        /// Attaches `subscriber`: the observation starts at its first demand.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
            subscriber.receive(subscription: KeyValueObservingSubscription(publisher: self, subscriber: subscriber))
        }

        /// A publisher that emits, without the value, each time this one does (Apple's `didChange()`).
        ///
        /// ```swift
        /// let cancellable = mood.publisher(for: \.rating, options: []).didChange().sink { print("rating changed") }
        /// ```
        public func didChange() -> Publishers.Map<Self, Void> {
            map { _ in () }
        }
    }
}

extension NSObject.KeyValueObservingPublisher: Equatable {
    /// Publishers are equal when they observe the same object (by identity) at the same key path with the same options.
    ///
    /// ```swift
    /// mood.publisher(for: \.rating) == mood.publisher(for: \.rating)   // true
    /// ```
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.object === rhs.object && lhs.keyPath == rhs.keyPath && lhs.options == rhs.options
    }
}

extension _KeyValueCodingAndObserving where Self: NSManagedObject {
    /// A publisher of the property's values: by default the current value at once, then each new value (Apple's
    /// `publisher(for:options:)`). It emits on the object's context's queue; subscribe there.
    ///
    /// ```swift
    /// let cancellable = mood.publisher(for: \.rating).sink { rating in print("rating", rating) }
    /// mood.rating = 4   // prints "rating 4"
    /// ```
    public func publisher<Value>(for keyPath: KeyPath<Self, Value>, options: NSKeyValueObservingOptions = [.initial, .new])
        -> NSObject.KeyValueObservingPublisher<Self, Value>
    {
        NSObject.KeyValueObservingPublisher(object: self, keyPath: keyPath, options: options)
    }
}

/// One subscriber's observation. Values are emitted while there is demand; those that come without demand are dropped
/// (as Apple's key-value observing publisher drops them).
private final class KeyValueObservingSubscription<Subject: NSManagedObject, Value, Downstream: Subscriber>: Subscription,
    @unchecked Sendable where Downstream.Input == Value, Downstream.Failure == Never
{
    // @unchecked Sendable: `demand`, `observation` and `downstream` are read and written under `lock`; values are
    // delivered on the observed object's context's queue.
    private let lock = NSLock()
    private var publisher: NSObject.KeyValueObservingPublisher<Subject, Value>?
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var observation: NSKeyValueObservation?

    init(publisher: NSObject.KeyValueObservingPublisher<Subject, Value>, subscriber: Downstream) {
        self.publisher = publisher
        downstream = subscriber
    }

    func request(_ demand: Subscribers.Demand) {
        let start: NSObject.KeyValueObservingPublisher<Subject, Value>? = lock.withLock {
            self.demand += demand
            defer { publisher = nil }
            return publisher
        }
        guard let start else { return }
        let made = start.object.observe(start.keyPath, options: start.options) { [weak self] object, change in
            self?.deliver(change.isPrior ? change.oldValue : (change.newValue ?? object[keyPath: start.keyPath]), object: object,
                          keyPath: start.keyPath)
        }
        let keep = lock.withLock { () -> Bool in
            guard downstream != nil else { return false }
            observation = made
            return true
        }
        if !keep { made.invalidate() }
    }

    private func deliver(_ value: Value?, object: Subject, keyPath: KeyPath<Subject, Value>) {
        let target: Downstream? = lock.withLock {
            guard demand > 0, let downstream else { return nil }
            demand -= 1
            return downstream
        }
        guard let target else { return }
        let more = target.receive(value ?? object[keyPath: keyPath])
        if more > 0 { lock.withLock { demand += more } }
    }

    func cancel() {
        let ended = lock.withLock { () -> NSKeyValueObservation? in
            downstream = nil
            publisher = nil
            defer { observation = nil }
            return observation
        }
        ended?.invalidate()
    }
}
