import Foundation
import OpenCoreData

/// Something told after each change event of a context (a ``ResultsObserver``), on the context's thread or actor.
protocol ContextChangeObserver: AnyObject {
    /// The context's objects changed (its own changes were processed, or other writers' saves merged).
    func contextDidChange()
}

/// A context's change observers, held weakly, and whether the end of the current event is scheduled.
struct ContextChangeObservers {
    private struct Entry {
        weak var observer: (any ContextChangeObserver)?
    }

    private var entries: [Entry] = []
    /// The `NSManagedObjectContextObjectsDidChange` registration, while there are observers.
    var notificationToken: (any NSObjectProtocol)?
    /// Whether `processPendingChanges()` is scheduled where the context is used.
    var eventEndScheduled = false

    /// Whether a change should schedule the end of its event: observers wait for it, and it is not scheduled yet.
    var needsEventScheduled: Bool { !eventEndScheduled && !entries.isEmpty }

    mutating func add(_ observer: any ContextChangeObserver) {
        entries.removeAll { $0.observer == nil }
        entries.append(Entry(observer: observer))
    }

    /// Tells each live observer.
    func tell() {
        for entry in entries { entry.observer?.contextDidChange() }
    }
}

extension ModelContext {
    /// Has `observer` told after each change event of this context: its own changes once processed (at the end of
    /// the event: `processPendingChanges()`, a save, or by itself where the context is used — the main actor, a model
    /// actor), and other contexts' and processes' saves once merged (at once where the context is used, else when
    /// it is next used).
    func addChangeObserver(_ observer: any ContextChangeObserver) {
        if changeObservers.notificationToken == nil {
            let context = UncheckedContext(context: self)
            changeObservers.notificationToken = NotificationCenter.default.addObserver(
                forName: .NSManagedObjectContextObjectsDidChange, object: managedObjectContext, queue: nil
            ) { _ in
                // Posted synchronously by the context, on its own thread or queue.
                context.context?.changeObservers.tell()
            }
            wakeOnOtherSaves()
        }
        changeObservers.add(observer)
    }

    /// Has other writers' saves merged as soon as they are posted, where the context is used (the main context
    /// already is, on the main actor).
    private func wakeOnOtherSaves() {
        if case .none = autosaveRunner { return }
        let runner = autosaveRunner, context = UncheckedContext(context: self)
        inbox.setWakeUp { _ = runner.later(context) { $0.catchUp() } }
    }

    /// Schedules `processPendingChanges()` where the context is used, so that observers see a burst of changes once.
    func scheduleEventEnd() {
        changeObservers.eventEndScheduled = autosaveRunner.later(UncheckedContext(context: self)) { $0.endScheduledEvent() }
    }

    private func endScheduledEvent() {
        changeObservers.eventEndScheduled = false
        processPendingChanges()
    }
}
