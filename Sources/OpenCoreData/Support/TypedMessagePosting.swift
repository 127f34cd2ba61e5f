import Dispatch
import Foundation

/// Posts Foundation's typed notification messages (`NotificationCenter.MainActorMessage`/`AsyncMessage`) next to the
/// `Notification`s Core Data posts.
///
/// On Apple platforms a posted `Notification` also reaches the observers of its message type (through the message's
/// `makeMessage(_:)`); Linux Foundation keeps the two apart (checked with Swift 6.3.1: `post(name:object:userInfo:)`
/// reaches no `addObserver(of:for:)` observer), so OpenCoreData posts both.
///
/// ```swift
/// TypedMessagePosting.postAsync(MyAsyncMessage.makeMessage(notification), subject: coordinator)
/// ```
package enum TypedMessagePosting {
    /// Posts the main-actor message `make` builds from `notification`. On the main queue it is posted at once, as
    /// Apple's are; from elsewhere (a main-queue context run inline while another thread holds the main queue) it is
    /// posted on the main queue as soon as that is free.
    package static func postOnMainActor<Message: MainActorBridgedMessage>(
        _ type: Message.Type, from notification: Notification, subject: Message.Subject
    ) where Message.Subject: AnyObject {
        // The box carries the values into the main actor's closure: run at once on this thread (the main queue), or
        // later on the main queue, never on two threads at a time.
        let box = UncheckedSendableBox((notification, subject))
        if MainQueueMark.isRunning {
            MainActor.assumeIsolated {
                if let message = Message.makeMessage(box.value.0) { NotificationCenter.default.post(message, subject: box.value.1) }
            }
        } else {
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    if let message = Message.makeMessage(box.value.0) { NotificationCenter.default.post(message, subject: box.value.1) }
                }
            }
        }
    }

    /// Posts the asynchronous message built from `notification` (its observers run on tasks of their own).
    package static func postAsync<Message: AsyncBridgedMessage>(
        _ type: Message.Type, from notification: Notification, subject: Message.Subject
    ) where Message.Subject: AnyObject {
        if let message = Message.makeMessage(notification) { NotificationCenter.default.post(message, subject: subject) }
    }
}

/// A main-actor message made from a posted `Notification` (Apple's Foundation requires `makeMessage(_:)` of every
/// message; Linux Foundation does not, since it does not bridge notifications to messages).
package protocol MainActorBridgedMessage: NotificationCenter.MainActorMessage {
    @MainActor static func makeMessage(_ notification: Notification) -> Self?
}

/// An asynchronous message made from a posted `Notification` (see ``MainActorBridgedMessage``).
package protocol AsyncBridgedMessage: NotificationCenter.AsyncMessage {
    static func makeMessage(_ notification: Notification) -> Self?
}
