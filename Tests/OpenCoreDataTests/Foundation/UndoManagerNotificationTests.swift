import Testing
@testable import OpenCoreData

/// Records the notifications one undo manager posts, with the short name (without `NSUndoManager`/
/// `Notification`) and whether the group-is-discardable key was set.
final class UndoNotificationRecorder: @unchecked Sendable {
    // @unchecked Sendable: `entries` is only read or written while holding `lock`.
    private let lock = NSLock()
    private var entries: [String] = []
    private var tokens: [any NSObjectProtocol] = []

    init(observing undoManager: UndoManager) {
        let names: [NSNotification.Name] = [
            .NSUndoManagerCheckpoint, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange,
            .NSUndoManagerWillRedoChange, .NSUndoManagerDidRedoChange, .NSUndoManagerDidOpenUndoGroup,
            .NSUndoManagerWillCloseUndoGroup, .NSUndoManagerDidCloseUndoGroup,
        ]
        for name in names {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: undoManager, queue: nil) { [weak self] note in
                var entry = note.name.rawValue
                    .replacingOccurrences(of: "NSUndoManager", with: "")
                    .replacingOccurrences(of: "Notification", with: "")
                if note.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? Bool == true { entry += "(discardable)" }
                self?.lock.withLock { self?.entries.append(entry) }
            })
        }
    }

    /// The entries recorded so far, and forgets them.
    func take() -> [String] {
        lock.withLock {
            defer { entries.removeAll() }
            return entries
        }
    }

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}

@Suite struct UndoManagerNotificationTests {
    @Test func notificationNamesAreApples() {
        #expect(NSNotification.Name.NSUndoManagerCheckpoint.rawValue == "NSUndoManagerCheckpointNotification")
        #expect(NSNotification.Name.NSUndoManagerWillUndoChange.rawValue == "NSUndoManagerWillUndoChangeNotification")
        #expect(NSNotification.Name.NSUndoManagerDidUndoChange.rawValue == "NSUndoManagerDidUndoChangeNotification")
        #expect(NSNotification.Name.NSUndoManagerWillRedoChange.rawValue == "NSUndoManagerWillRedoChangeNotification")
        #expect(NSNotification.Name.NSUndoManagerDidRedoChange.rawValue == "NSUndoManagerDidRedoChangeNotification")
        #expect(NSNotification.Name.NSUndoManagerDidOpenUndoGroup.rawValue == "NSUndoManagerDidOpenUndoGroupNotification")
        #expect(NSNotification.Name.NSUndoManagerWillCloseUndoGroup.rawValue == "NSUndoManagerWillCloseUndoGroupNotification")
        #expect(NSNotification.Name.NSUndoManagerDidCloseUndoGroup.rawValue == "NSUndoManagerDidCloseUndoGroupNotification")
        #expect(NSUndoManagerGroupIsDiscardableKey == "NSUndoManagerGroupIsDiscardableKey")
    }

    @Test func groupsPostCheckpointsExceptWhenATopLevelGroupOpens() {
        let undoManager = UndoManager()
        let recorder = UndoNotificationRecorder(observing: undoManager)
        undoManager.beginUndoGrouping()
        #expect(recorder.take() == ["DidOpenUndoGroup"])
        undoManager.beginUndoGrouping()
        #expect(recorder.take() == ["Checkpoint", "DidOpenUndoGroup"])
        undoManager.endUndoGrouping()
        #expect(recorder.take() == ["Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup"])
        undoManager.endUndoGrouping()
        #expect(recorder.take() == ["Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup"])
    }

    @Test func registeringOutsideAGroupOpensOneWithANotification() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        let recorder = UndoNotificationRecorder(observing: undoManager)
        document.setText("a")
        document.setText("b")
        #expect(recorder.take() == ["DidOpenUndoGroup"])
        undoManager.closeEventGroup()
        #expect(recorder.take() == ["Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup"])
    }

    @Test func undoAndRedoPostInAppleOrder() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        let recorder = UndoNotificationRecorder(observing: undoManager)
        document.setText("a")
        _ = recorder.take()

        undoManager.undo()
        #expect(recorder.take() == [
            // undo() closes the open top-level group …
            "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",
            // … then undoNestedGroup() undoes it, recording into a redo group.
            "Checkpoint", "WillUndoChange",
            "DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",
            "DidUndoChange",
        ])

        undoManager.redo()
        #expect(recorder.take() == [
            "Checkpoint", "WillRedoChange",
            "DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",
            "DidRedoChange",
        ])

        undoManager.undo()
        _ = recorder.take()
        undoManager.redo()
        undoManager.redo()  // nothing left: only the checkpoint
        #expect(recorder.take().suffix(1) == ["Checkpoint"])
    }

    @Test func canRedoPostsACheckpoint() {
        let undoManager = UndoManager()
        let recorder = UndoNotificationRecorder(observing: undoManager)
        #expect(!undoManager.canRedo)
        #expect(recorder.take() == ["Checkpoint"])
        _ = undoManager.canUndo
        #expect(recorder.take().isEmpty)
    }

    @Test func willCloseSaysWhenTheGroupIsDiscardable() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        let recorder = UndoNotificationRecorder(observing: undoManager)
        document.setText("scroll")
        undoManager.setActionIsDiscardable(true)
        undoManager.closeEventGroup()
        #expect(recorder.take() == ["DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup(discardable)", "DidCloseUndoGroup"])
        document.setText("edit")
        undoManager.closeEventGroup()
        #expect(recorder.take() == ["DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup"])
    }

    /// Core Data's context records its pending changes when the undo manager posts a checkpoint; operations
    /// registered then belong to the group being closed.
    @Test func operationsRegisteredAtACheckpointJoinTheClosingGroup() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        let pending = UndoTestDocument(undoManager: undoManager)
        undoManager.beginUndoGrouping()
        document.setText("a")
        var flushed = false
        let observer = CheckpointFlusher(undoManager: undoManager) {
            guard !flushed else { return }
            flushed = true
            pending.setText("flushed")
        }
        undoManager.endUndoGrouping()
        observer.stop()
        #expect(flushed)
        #expect(undoManager.undoCount == 1)
        undoManager.undo()
        #expect(document.text == "" && pending.text == "")
    }
}

/// Calls `action` synchronously on every checkpoint of one undo manager.
final class CheckpointFlusher {
    private var token: (any NSObjectProtocol)?

    init(undoManager: UndoManager, action: @escaping () -> Void) {
        let box = UncheckedAction(action)
        token = NotificationCenter.default.addObserver(forName: .NSUndoManagerCheckpoint, object: undoManager, queue: nil) { _ in
            box.action()
        }
    }

    func stop() {
        if let token { NotificationCenter.default.removeObserver(token) }
        token = nil
    }
}

/// Carries a non-Sendable closure into a notification block that runs synchronously on the posting thread.
struct UncheckedAction: @unchecked Sendable {
    // @unchecked Sendable: notifications posted with `queue: nil` run on the posting thread, the test's own.
    let action: () -> Void

    init(_ action: @escaping () -> Void) {
        self.action = action
    }
}
