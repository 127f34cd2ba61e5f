// The records an UndoManager keeps: groups of registered actions, nested groups inside them.

import Foundation

/// One registered undo operation: a closure and the target it is called with.
///
/// The target is held weakly — Apple's undo manager keeps an unowned reference, so that undo actions do
/// not keep their targets alive; an action whose target has been deallocated is skipped.
///
/// ```swift
/// let action = UndoAction(target: document) { ($0 as! Document).title = "Old" }
/// action.perform()
/// ```
final class UndoAction {
    private(set) weak var target: AnyObject?
    let targetIdentifier: ObjectIdentifier
    private let handler: (AnyObject) -> Void
    var isDiscardable = false

    init(target: AnyObject, handler: @escaping (AnyObject) -> Void) {
        self.target = target
        self.targetIdentifier = ObjectIdentifier(target)
        self.handler = handler
    }

    func perform() {
        guard let target else { return }
        handler(target)
    }
}

/// An undo group: the actions and nested groups registered between a `beginUndoGrouping()` and its
/// `endUndoGrouping()`, in registration order, with the group's action name and user info.
///
/// ```swift
/// let group = UndoGroup()
/// group.items.append(.action(action))
/// group.perform()  // performs items last to first
/// ```
final class UndoGroup {
    enum Item {
        case action(UndoAction)
        case group(UndoGroup)
    }

    var items: [Item] = []
    var actionName = ""
    var userInfo: [UndoManager.UserInfoKey: Any] = [:]

    var isEmpty: Bool { items.isEmpty }

    /// True when the group holds at least one action and every action in it (nested ones included) is discardable.
    var isDiscardable: Bool {
        guard !items.isEmpty else { return false }
        return items.allSatisfy { item in
            switch item {
            case .action(let action): action.isDiscardable
            case .group(let group): group.isDiscardable
            }
        }
    }

    /// The most recently registered action, looking into the last nested group.
    var lastAction: UndoAction? {
        switch items.last {
        case .action(let action)?: action
        case .group(let group)?: group.lastAction
        case nil: nil
        }
    }

    /// Performs the group's actions in the reverse of their registration order (nested groups likewise).
    func perform() {
        for item in items.reversed() {
            switch item {
            case .action(let action): action.perform()
            case .group(let group): group.perform()
            }
        }
    }

    /// Removes every action whose target is `target`, and nested groups left empty by that.
    func removeActions(withTarget target: ObjectIdentifier) {
        items = items.compactMap { item in
            switch item {
            case .action(let action):
                return action.targetIdentifier == target ? nil : item
            case .group(let group):
                group.removeActions(withTarget: target)
                return group.isEmpty ? nil : item
            }
        }
    }
}
