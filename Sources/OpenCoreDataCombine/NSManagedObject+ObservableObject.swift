@_spi(OpenCoreDataObservation) import OpenCoreData
import OpenCombine

/// Managed objects are observable objects, as on Apple platforms: `objectWillChange` emits before any property of the
/// object changes — at once for a setter or key-value coding change, at the end of the event for a change that came by
/// merge, refresh or rollback. It emits on the object's context's queue; read it there.
///
/// ```swift
/// let cancellable = mood.objectWillChange.sink { print("mood will change") }
/// mood.rating = 5   // prints "mood will change"
/// ```
extension NSManagedObject: ObservableObject {
    /// The publisher type of `objectWillChange` (Apple's `NSManagedObject.ObjectWillChangePublisher`).
    public typealias ObjectWillChangePublisher = ObservableObjectPublisher

    /// A publisher that emits before the object changes. Made at its first use, kept with the object (and released
    /// with it).
    ///
    /// ```swift
    /// let cancellable = mood.objectWillChange.sink { refreshView() }
    /// ```
    public var objectWillChange: ObservableObjectPublisher {
        if let installed = _observationStorage as? WillChangePublisherBox { return installed.publisher }
        let publisher = ObservableObjectPublisher()
        let observation = _observeAnyChange { _ in publisher.send() }
        _observationStorage = WillChangePublisherBox(publisher: publisher, observation: observation)
        return publisher
    }
}

/// The `objectWillChange` publisher kept with its object, with the observation that drives it.
private final class WillChangePublisherBox {
    let publisher: ObservableObjectPublisher
    let observation: NSKeyValueObservation

    init(publisher: ObservableObjectPublisher, observation: NSKeyValueObservation) {
        self.publisher = publisher
        self.observation = observation
    }
}
