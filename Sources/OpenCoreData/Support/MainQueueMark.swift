import Dispatch
import Foundation

/// Marks the main queue, so that code running on it off the main thread is recognised.
package enum MainQueueMark {
    package static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Set while a thread that holds the main queue waits in `performAndWait` on another context's queue.
    @TaskLocal package static var heldBySyncCaller = false

    /// Whether the current thread holds the main queue (runs on it, or waits on another queue from it).
    package static var isHeld: Bool { DispatchQueue.getSpecific(key: key) != nil || heldBySyncCaller }

    /// Whether the current code runs on the main queue itself (where the main actor runs), not only holds it.
    package static var isRunning: Bool { Thread.isMainThread || DispatchQueue.getSpecific(key: key) != nil }
}
