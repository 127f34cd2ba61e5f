import Foundation

/// A general-purpose recorder of operations for undo and redo — Apple's `UndoManager`, which Linux
/// Foundation lacks. A managed object context records its changes in one when you give it one.
///
/// Register an undo operation whenever you change something; undoing performs it, and what it registers
/// while undoing becomes the redo operation:
///
/// ```swift
/// final class Document { var title = "" }
/// let undoManager = UndoManager()
/// let document = Document()
///
/// func setTitle(_ title: String) {
///     let old = document.title
///     undoManager.registerUndo(withTarget: document) { _ in setTitle(old) }
///     undoManager.setActionName("Rename")
///     document.title = title
/// }
///
/// setTitle("Draft")
/// undoManager.closeEventGroup()   // where Apple's run loop would close the event's group
/// undoManager.undoMenuItemTitle   // "Undo Rename"
/// undoManager.undo()              // document.title == ""
/// undoManager.redo()              // document.title == "Draft"
/// ```
///
/// Operations are collected in *undo groups*, and `undo()` reverts a whole top-level group, performing its
/// operations last to first. Groups nest (``beginUndoGrouping()`` / ``endUndoGrouping()``). With
/// ``groupsByEvent`` true (the default) a registration made while no group is open opens a top-level group
/// automatically. Apple's undo manager closes that group at the end of the run loop pass; Linux programs
/// seldom run a run loop, so the end of an event is explicit here: ``closeEventGroup()`` (an OpenCoreData
/// extension) closes the automatically opened group, and a managed object context calls it at the end of
/// each event (the end of a `perform` block, `processPendingChanges()`, before a save). `undo()` also closes
/// that group, as Apple's does.
///
/// Programmer errors that Apple's undo manager raises as `NSInternalInconsistencyException` stop the program
/// with a message: `endUndoGrouping()` with no open group, `enableUndoRegistration()` without a matching
/// disable, `undo()` with nested groups open, a registration with no open group while ``groupsByEvent`` is
/// false, `redo()` during an undo.
///
/// Like Apple's, an undo manager is not thread-safe: use it on one thread or queue (a context's). It is
/// not `Sendable`. It posts its notifications (`Notification.Name.NSUndoManagerCheckpoint` and the
/// others) through `NotificationCenter.default` on the calling thread, with itself as the object.
///
/// Not available without an Objective-C runtime: `registerUndo(withTarget:selector:object:)` and
/// `prepare(withInvocationTarget:)`; register closures with ``registerUndo(withTarget:handler:)`` instead.
open class UndoManager: NSObject {
    private var undoStack: [UndoGroup] = []
    private var redoStack: [UndoGroup] = []
    /// The open groups that receive registrations, outermost first.
    private var openGroups: [UndoGroup] = []
    /// Whether `openGroups[0]` was opened automatically by a registration (see `groupsByEvent`).
    private var eventGroupIsOpen = false
    /// The caller's open groups, set aside while an undo or redo records into a group of its own.
    private var suspendedGroups: [UndoGroup] = []
    private var suspendedEventGroupIsOpen = false
    private var disableCount = 0
    private var undoInProgress = false
    private var redoInProgress = false

    /// Creates an empty undo manager with registration enabled and ``groupsByEvent`` true.
    ///
    /// ```swift
    /// let undoManager = UndoManager()
    /// context.undoManager = undoManager
    /// ```
    public override init() {
        super.init()
    }

    // MARK: - Registering undo operations

    /// Registers a closure that undoes a change to `target`; undoing calls it with `target`.
    ///
    /// The target is not retained (an action whose target has been deallocated is skipped). Registering
    /// while undoing records a redo operation; registering otherwise (not while redoing) clears the redo
    /// stack. Nothing is recorded while registration is disabled. With no group open, a top-level group is
    /// opened when ``groupsByEvent`` is true; otherwise the program stops.
    ///
    /// ```swift
    /// let old = document.title
    /// undoManager.registerUndo(withTarget: document) { $0.title = old }
    /// ```
    public func registerUndo<TargetType: AnyObject>(withTarget target: TargetType,
                                                     handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        let action = UndoAction(target: target) { object in handler(object as! TargetType) }
        if openGroups.isEmpty {
            precondition(groupsByEvent,
                         "UndoManager: registerUndo(withTarget:handler:) with no open undo group while groupsByEvent is false; call beginUndoGrouping() first")
            openGroup(isEventGroup: true)
        }
        openGroups[openGroups.count - 1].items.append(.action(action))
        if !undoInProgress && !redoInProgress { redoStack.removeAll() }
    }

    /// Whether operations are recorded. False after ``disableUndoRegistration()`` until a balancing
    /// ``enableUndoRegistration()``.
    ///
    /// ```swift
    /// undoManager.disableUndoRegistration()
    /// undoManager.isUndoRegistrationEnabled  // false
    /// ```
    open var isUndoRegistrationEnabled: Bool {
        disableCount == 0
    }

    /// Stops recording operations. Calls nest: registration resumes when every disable is balanced by an enable.
    ///
    /// ```swift
    /// undoManager.disableUndoRegistration()
    /// loadInitialData()                         // not undoable
    /// undoManager.enableUndoRegistration()
    /// ```
    open func disableUndoRegistration() {
        disableCount += 1
    }

    /// Balances a ``disableUndoRegistration()``; stops the program when none is in effect.
    ///
    /// ```swift
    /// undoManager.enableUndoRegistration()
    /// ```
    open func enableUndoRegistration() {
        precondition(disableCount > 0, "UndoManager: enableUndoRegistration() called while registration is not disabled")
        disableCount -= 1
    }

    // MARK: - Groups

    /// Whether a registration made with no group open opens a top-level group automatically. Default true.
    ///
    /// ```swift
    /// undoManager.groupsByEvent = false
    /// undoManager.beginUndoGrouping()   // now required before registering
    /// ```
    open var groupsByEvent = true

    /// The number of open undo groups (or redo groups, while undoing); 0 when none is open.
    ///
    /// ```swift
    /// undoManager.beginUndoGrouping()
    /// undoManager.groupingLevel  // 1
    /// ```
    open var groupingLevel: Int {
        openGroups.count
    }

    /// Opens an undo group, nested in the open one if any.
    ///
    /// Posts `Notification.Name.NSUndoManagerCheckpoint` (except when the group is a top-level one), then
    /// `Notification.Name.NSUndoManagerDidOpenUndoGroup`.
    ///
    /// ```swift
    /// undoManager.beginUndoGrouping()
    /// move(shape); recolor(shape)     // undone together
    /// undoManager.endUndoGrouping()
    /// ```
    open func beginUndoGrouping() {
        openGroup(isEventGroup: false)
    }

    /// Closes the innermost open undo group; stops the program when none is open.
    ///
    /// Posts `Notification.Name.NSUndoManagerCheckpoint`, `Notification.Name.NSUndoManagerWillCloseUndoGroup`
    /// (with ``NSUndoManagerGroupIsDiscardableKey`` when the group holds only discardable actions), then
    /// `Notification.Name.NSUndoManagerDidCloseUndoGroup`. A closed nested group becomes one item of its
    /// parent; a closed top-level group goes on the undo stack (the redo stack while undoing). Empty groups are
    /// dropped.
    ///
    /// ```swift
    /// undoManager.endUndoGrouping()
    /// ```
    open func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "UndoManager: endUndoGrouping() called with no open undo group")
        post(.NSUndoManagerCheckpoint)
        precondition(!openGroups.isEmpty, "UndoManager: an NSUndoManagerCheckpoint observer closed the group being closed")
        let group = openGroups[openGroups.count - 1]
        post(.NSUndoManagerWillCloseUndoGroup,
             userInfo: group.isDiscardable ? [NSUndoManagerGroupIsDiscardableKey: NSNumber(value: true)] : nil)
        openGroups.removeLast()
        if let parent = openGroups.last {
            if !group.isEmpty { parent.items.append(.group(group)) }
        } else {
            eventGroupIsOpen = false
            if !group.isEmpty {
                if undoInProgress { push(group, onto: &redoStack) } else { push(group, onto: &undoStack) }
            }
        }
        post(.NSUndoManagerDidCloseUndoGroup)
    }

    /// Closes the top-level group that a registration opened automatically (see ``groupsByEvent``), when it is
    /// open and no nested group is open inside it; does nothing otherwise.
    ///
    /// An OpenCoreData extension: it marks the end of an event, which Apple's undo manager learns from the run
    /// loop. A managed object context calls it at the end of each event; call it yourself when you use an undo
    /// manager directly.
    ///
    /// ```swift
    /// undoManager.registerUndo(withTarget: document) { $0.title = "Old" }
    /// undoManager.closeEventGroup()
    /// undoManager.groupingLevel  // 0
    /// ```
    public func closeEventGroup() {
        guard eventGroupIsOpen, openGroups.count == 1, !undoInProgress, !redoInProgress else { return }
        endUndoGrouping()
    }

    private func openGroup(isEventGroup: Bool) {
        if !openGroups.isEmpty { post(.NSUndoManagerCheckpoint) }
        openGroups.append(UndoGroup())
        if openGroups.count == 1 { eventGroupIsOpen = isEventGroup }
        post(.NSUndoManagerDidOpenUndoGroup)
    }

    /// The maximum number of top-level groups kept on each of the undo and redo stacks; the oldest are
    /// dropped beyond it. 0, the default, means no limit.
    ///
    /// ```swift
    /// undoManager.levelsOfUndo = 20
    /// ```
    open var levelsOfUndo = 0 {
        didSet {
            trim(&undoStack)
            trim(&redoStack)
        }
    }

    /// The run loop modes in which Apple's undo manager closes event groups. Stored only: OpenCoreData closes
    /// event groups with ``closeEventGroup()``. Default `[.default]`.
    ///
    /// ```swift
    /// undoManager.runLoopModes = [.default, .common]
    /// ```
    open var runLoopModes: [RunLoop.Mode] = [.default]

    private func push(_ group: UndoGroup, onto stack: inout [UndoGroup]) {
        stack.append(group)
        trim(&stack)
    }

    private func trim(_ stack: inout [UndoGroup]) {
        if levelsOfUndo > 0, stack.count > levelsOfUndo {
            stack.removeFirst(stack.count - levelsOfUndo)
        }
    }

    // MARK: - Undo and redo

    /// Closes the top-level undo group if one is open (``groupingLevel`` 1), then undoes the last top-level
    /// group with ``undoNestedGroup()``. Stops the program when more than one group is open or an undo or redo
    /// is in progress.
    ///
    /// ```swift
    /// undoManager.undo()
    /// ```
    open func undo() {
        precondition(!undoInProgress && !redoInProgress, "UndoManager: undo() called while an undo or redo is in progress")
        precondition(openGroups.count <= 1,
                     "UndoManager: undo() called with \(openGroups.count) undo groups open; close nested groups with endUndoGrouping() and undo them with undoNestedGroup()")
        if openGroups.count == 1 { endUndoGrouping() }
        undoNestedGroup()
    }

    /// Undoes the last undo group — the last top-level group, or, while a group is open, the last group closed
    /// inside it — recording what the operations register as one group on the redo stack.
    ///
    /// Posts `Notification.Name.NSUndoManagerCheckpoint` and `Notification.Name.NSUndoManagerWillUndoChange`
    /// before undoing and `Notification.Name.NSUndoManagerDidUndoChange` after (with the redo group's
    /// open and close notifications in between); posts only the checkpoint when there is nothing to undo. Stops
    /// the program when operations were registered in the open group after its last nested group closed.
    ///
    /// ```swift
    /// undoManager.beginUndoGrouping()
    /// undoManager.beginUndoGrouping(); edit(); undoManager.endUndoGrouping()
    /// undoManager.undoNestedGroup()   // undoes edit(); the outer group stays open
    /// ```
    open func undoNestedGroup() {
        precondition(!undoInProgress && !redoInProgress, "UndoManager: undoNestedGroup() called while an undo or redo is in progress")
        let levelBefore = openGroups.count
        post(.NSUndoManagerCheckpoint)
        // A checkpoint observer that records its pending changes opens an event group: those changes belong to
        // the current event, which is what is being undone.
        if levelBefore == 0, eventGroupIsOpen, openGroups.count == 1 { endUndoGrouping() }
        let group: UndoGroup
        if let innermost = openGroups.last {
            guard let last = innermost.items.last else { return }
            guard case .group(let nested) = last else {
                preconditionFailure("UndoManager: undoNestedGroup() called after undo operations were registered in the open group; close it with endUndoGrouping() first")
            }
            innermost.items.removeLast()
            group = nested
        } else {
            guard let last = undoStack.popLast() else { return }
            group = last
        }
        post(.NSUndoManagerWillUndoChange)
        perform(group, undoing: true)
        post(.NSUndoManagerDidUndoChange)
    }

    /// Performs the last group on the redo stack, recording what its operations register as one group on the
    /// undo stack. Closes an automatically opened event group first; stops the program when called during an
    /// undo or redo, or with another group open.
    ///
    /// Posts `Notification.Name.NSUndoManagerCheckpoint` and `Notification.Name.NSUndoManagerWillRedoChange`
    /// before redoing and `Notification.Name.NSUndoManagerDidRedoChange` after.
    ///
    /// ```swift
    /// undoManager.redo()
    /// ```
    open func redo() {
        precondition(!undoInProgress, "UndoManager: redo() called during an undo")
        precondition(!redoInProgress, "UndoManager: redo() called during a redo")
        closeEventGroup()
        precondition(openGroups.isEmpty, "UndoManager: redo() called with an undo group open; close it with endUndoGrouping() first")
        post(.NSUndoManagerCheckpoint)
        if eventGroupIsOpen, openGroups.count == 1 { endUndoGrouping() }
        guard let group = redoStack.popLast() else { return }
        post(.NSUndoManagerWillRedoChange)
        perform(group, undoing: false)
        post(.NSUndoManagerDidRedoChange)
    }

    /// Performs `group`'s operations inside a fresh top-level group that lands on the other stack.
    private func perform(_ group: UndoGroup, undoing: Bool) {
        suspendedGroups = openGroups
        suspendedEventGroupIsOpen = eventGroupIsOpen
        openGroups = []
        eventGroupIsOpen = false
        if undoing { undoInProgress = true } else { redoInProgress = true }
        openGroup(isEventGroup: false)
        openGroups[0].actionName = group.actionName
        openGroups[0].userInfo = group.userInfo
        group.perform()
        while !openGroups.isEmpty { endUndoGrouping() }
        undoInProgress = false
        redoInProgress = false
        openGroups = suspendedGroups
        eventGroupIsOpen = suspendedEventGroupIsOpen
        suspendedGroups = []
        suspendedEventGroupIsOpen = false
    }

    /// Whether the undo manager is performing an undo.
    ///
    /// ```swift
    /// undoManager.registerUndo(withTarget: document) { _ in print(undoManager.isUndoing) }  // true when undone
    /// ```
    open var isUndoing: Bool {
        undoInProgress
    }

    /// Whether the undo manager is performing a redo.
    ///
    /// ```swift
    /// if undoManager.isRedoing { … }
    /// ```
    open var isRedoing: Bool {
        redoInProgress
    }

    /// Whether there is anything to undo, on the undo stack or in the open groups (which may have to be closed
    /// before ``undo()`` can undo them).
    ///
    /// ```swift
    /// undoButton.isEnabled = undoManager.canUndo
    /// ```
    open var canUndo: Bool {
        !undoStack.isEmpty || undoSideOpenGroupsHaveActions
    }

    /// Whether there is anything to redo. Posts `Notification.Name.NSUndoManagerCheckpoint` first, so that
    /// observers can record pending changes (which clear the redo stack).
    ///
    /// ```swift
    /// redoButton.isEnabled = undoManager.canRedo
    /// ```
    open var canRedo: Bool {
        post(.NSUndoManagerCheckpoint)
        return !redoStack.isEmpty
    }

    /// The number of top-level groups ``undo()`` can undo (the open group counts when it holds operations).
    ///
    /// ```swift
    /// undoManager.undoCount  // 2
    /// ```
    open var undoCount: Int {
        undoStack.count + (undoSideOpenGroupsHaveActions ? 1 : 0)
    }

    /// The number of groups ``redo()`` can redo.
    ///
    /// ```swift
    /// undoManager.redoCount  // 1
    /// ```
    open var redoCount: Int {
        redoStack.count
    }

    /// The open groups whose contents will land on the undo stack.
    private var undoSideOpenGroups: [UndoGroup] {
        undoInProgress ? suspendedGroups : openGroups
    }

    private var undoSideOpenGroupsHaveActions: Bool {
        undoSideOpenGroups.contains { !$0.isEmpty }
    }

    /// The group ``undo()`` would undo next.
    private var nextUndoGroup: UndoGroup? {
        undoSideOpenGroupsHaveActions ? undoSideOpenGroups.first : undoStack.last
    }

    /// The group that action names, user info and the discardable flag apply to: the open top-level group
    /// (the redo group while undoing), else the last group on the undo stack.
    private var currentGroup: UndoGroup? {
        openGroups.first ?? undoStack.last
    }

    // MARK: - Removing operations

    /// Empties the undo and redo stacks, closes every open group and re-enables registration.
    ///
    /// ```swift
    /// undoManager.removeAllActions()
    /// undoManager.canUndo  // false
    /// ```
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        if undoInProgress || redoInProgress {
            suspendedGroups = []
            suspendedEventGroupIsOpen = false
        } else {
            openGroups = []
            eventGroupIsOpen = false
        }
        disableCount = 0
    }

    /// Removes every operation whose target is `target` from the undo and redo stacks and the open groups,
    /// dropping closed groups left empty. Does not re-enable registration.
    ///
    /// ```swift
    /// undoManager.removeAllActions(withTarget: deletedShape)
    /// ```
    open func removeAllActions(withTarget target: Any) {
        let identifier = ObjectIdentifier(target as AnyObject)
        for group in undoStack + redoStack + openGroups + suspendedGroups {
            group.removeActions(withTarget: identifier)
        }
        undoStack.removeAll { $0.isEmpty }
        redoStack.removeAll { $0.isEmpty }
    }

    // MARK: - Action names and discardable actions

    /// Names the current undo group — the open top-level group (the redo group while undoing), else the last
    /// group on the undo stack — for the Undo and Redo menu titles. An empty string removes the name. Undoing
    /// a group gives its name to the redo group, and redoing gives it back.
    ///
    /// ```swift
    /// undoManager.setActionName("Delete")
    /// undoManager.undoMenuItemTitle  // "Undo Delete"
    /// ```
    open func setActionName(_ actionName: String) {
        currentGroup?.actionName = actionName
    }

    /// The name of the group ``undo()`` would undo; empty when it has none or there is nothing to undo.
    ///
    /// ```swift
    /// undoManager.undoActionName  // "Delete"
    /// ```
    open var undoActionName: String {
        nextUndoGroup?.actionName ?? ""
    }

    /// The name of the group ``redo()`` would redo; empty when it has none or there is nothing to redo.
    ///
    /// ```swift
    /// undoManager.redoActionName  // "Delete"
    /// ```
    open var redoActionName: String {
        redoStack.last?.actionName ?? ""
    }

    /// The Undo menu title for the next undo: `"Undo"`, or `"Undo "` followed by ``undoActionName``.
    ///
    /// ```swift
    /// undoManager.undoMenuItemTitle  // "Undo Delete"
    /// ```
    open var undoMenuItemTitle: String {
        undoMenuTitle(forUndoActionName: undoActionName)
    }

    /// The Redo menu title for the next redo: `"Redo"`, or `"Redo "` followed by ``redoActionName``.
    ///
    /// ```swift
    /// undoManager.redoMenuItemTitle  // "Redo Delete"
    /// ```
    open var redoMenuItemTitle: String {
        redoMenuTitle(forUndoActionName: redoActionName)
    }

    /// The Undo menu title for an action name: `"Undo"` for an empty name, else `"Undo <name>"`. The titles
    /// are English; override this method to localize them.
    ///
    /// ```swift
    /// undoManager.undoMenuTitle(forUndoActionName: "Typing")  // "Undo Typing"
    /// ```
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// The Redo menu title for an action name: `"Redo"` for an empty name, else `"Redo <name>"`. The titles
    /// are English; override this method to localize them.
    ///
    /// ```swift
    /// undoManager.redoMenuTitle(forUndoActionName: "Typing")  // "Redo Typing"
    /// ```
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    /// Marks the most recently registered operation as discardable (or not): one that can be dropped when a
    /// document cannot be saved, such as a change of the visible area. A group is discardable when all its
    /// operations are.
    ///
    /// ```swift
    /// undoManager.registerUndo(withTarget: view) { $0.scroll(to: oldOrigin) }
    /// undoManager.setActionIsDiscardable(true)
    /// ```
    open func setActionIsDiscardable(_ discardable: Bool) {
        let latest = openGroups.reversed().lazy.compactMap(\.lastAction).first ?? undoStack.last?.lastAction
        latest?.isDiscardable = discardable
    }

    /// Whether the group ``undo()`` would undo holds only discardable operations.
    ///
    /// ```swift
    /// if undoManager.undoActionIsDiscardable { … }
    /// ```
    open var undoActionIsDiscardable: Bool {
        nextUndoGroup?.isDiscardable ?? false
    }

    /// Whether the group ``redo()`` would redo holds only discardable operations.
    ///
    /// ```swift
    /// if undoManager.redoActionIsDiscardable { … }
    /// ```
    open var redoActionIsDiscardable: Bool {
        redoStack.last?.isDiscardable ?? false
    }

    // MARK: - User info

    /// Attaches a user info value to the current undo group (the one ``setActionName(_:)`` names); nil removes it.
    ///
    /// ```swift
    /// undoManager.setActionUserInfoValue("trash", forKey: "icon")
    /// ```
    open func setActionUserInfoValue(_ info: Any?, forKey key: UndoManager.UserInfoKey) {
        currentGroup?.userInfo[key] = info
    }

    /// The user info value for `key` of the group ``undo()`` would undo.
    ///
    /// ```swift
    /// undoManager.undoActionUserInfoValue(forKey: "icon") as? String  // "trash"
    /// ```
    open func undoActionUserInfoValue(forKey key: UndoManager.UserInfoKey) -> Any? {
        nextUndoGroup?.userInfo[key]
    }

    /// The user info value for `key` of the group ``redo()`` would redo.
    ///
    /// ```swift
    /// undoManager.redoActionUserInfoValue(forKey: "icon") as? String  // "trash"
    /// ```
    open func redoActionUserInfoValue(forKey key: UndoManager.UserInfoKey) -> Any? {
        redoStack.last?.userInfo[key]
    }

    // MARK: - Notifications

    private func post(_ name: NSNotification.Name, userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
    }
}
