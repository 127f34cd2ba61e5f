import Testing
@testable import OpenCoreData

/// A document whose edits register their own inverse, as Apple's undo documentation shows; `log` records
/// every value set, so tests can see the order undo and redo apply changes in.
final class UndoTestDocument {
    let undoManager: UndoManager
    private(set) var text = ""
    private(set) var log: [String] = []

    init(undoManager: UndoManager) {
        self.undoManager = undoManager
    }

    func setText(_ newText: String) {
        let old = text
        undoManager.registerUndo(withTarget: self) { $0.setText(old) }
        text = newText
        log.append(newText)
    }

    func append(_ suffix: String) {
        setText(text + suffix)
    }
}

@Suite struct UndoManagerTests {
    @Test func undoRevertsAGroupInReverseOrderAndRedoReappliesIt() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        undoManager.beginUndoGrouping()
        document.append("a")
        document.append("b")
        document.append("c")
        undoManager.endUndoGrouping()
        #expect(document.text == "abc")

        undoManager.undo()
        #expect(document.text == "")
        // Undo performs the group's operations last to first: "ab", then "a", then "".
        #expect(document.log == ["a", "ab", "abc", "ab", "a", ""])
        #expect(undoManager.canRedo)
        #expect(!undoManager.canUndo)

        undoManager.redo()
        #expect(document.text == "abc")
        #expect(document.log.suffix(3) == ["a", "ab", "abc"])
        #expect(undoManager.canUndo)
        #expect(!undoManager.canRedo)
    }

    @Test func operationsRegisteredWhileUndoingBecomeRedoOperations() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        var seenWhileUndoing: [Bool] = []
        var seenWhileRedoing: [Bool] = []
        document.setText("one")
        undoManager.registerUndo(withTarget: document) { _ in
            seenWhileUndoing.append(undoManager.isUndoing)
            seenWhileRedoing.append(undoManager.isRedoing)
        }
        undoManager.closeEventGroup()
        #expect(!undoManager.isUndoing && !undoManager.isRedoing)
        undoManager.undo()
        #expect(seenWhileUndoing == [true] && seenWhileRedoing == [false])
        #expect(document.text == "")
        #expect(undoManager.redoCount == 1)
        #expect(undoManager.undoCount == 0)
        undoManager.redo()
        #expect(document.text == "one")
        #expect(undoManager.undoCount == 1)
    }

    @Test func registeringANewOperationClearsTheRedoStackButRedoingDoesNot() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        for text in ["1", "2", "3"] {
            document.setText(text)
            undoManager.closeEventGroup()
        }
        undoManager.undo()
        undoManager.undo()
        #expect(document.text == "1")
        #expect(undoManager.redoCount == 2)
        undoManager.redo()  // registers the undo of "2" while redoing: the remaining redo survives
        #expect(document.text == "2")
        #expect(undoManager.redoCount == 1)

        document.setText("new")  // a new change invalidates the redo stack
        #expect(!undoManager.canRedo)
        #expect(undoManager.redoCount == 0)
    }

    @Test func nestedGroupsAreUndoneWithTheirTopLevelGroup() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        undoManager.beginUndoGrouping()
        document.append("a")
        undoManager.beginUndoGrouping()
        #expect(undoManager.groupingLevel == 2)
        document.append("b")
        undoManager.endUndoGrouping()
        document.append("c")
        undoManager.endUndoGrouping()
        #expect(undoManager.groupingLevel == 0)
        #expect(undoManager.undoCount == 1)

        undoManager.undo()
        #expect(document.text == "")
        #expect(document.log == ["a", "ab", "abc", "ab", "a", ""])
        undoManager.redo()
        #expect(document.text == "abc")
    }

    @Test func undoNestedGroupUndoesTheLastGroupClosedInsideTheOpenOne() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        undoManager.beginUndoGrouping()
        undoManager.beginUndoGrouping()
        document.append("a")
        undoManager.endUndoGrouping()
        undoManager.beginUndoGrouping()
        document.append("b")
        undoManager.endUndoGrouping()

        undoManager.undoNestedGroup()
        #expect(document.text == "a")
        #expect(undoManager.groupingLevel == 1)  // the outer group stays open
        #expect(undoManager.redoCount == 1)
        undoManager.undoNestedGroup()
        #expect(document.text == "")
        undoManager.endUndoGrouping()  // now empty: dropped
        #expect(undoManager.undoCount == 0)
        #expect(undoManager.redoCount == 2)
    }

    @Test func groupsByEventOpensAGroupThatCloseEventGroupCloses() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        #expect(undoManager.groupsByEvent)
        document.setText("a")
        document.setText("b")
        #expect(undoManager.groupingLevel == 1)
        undoManager.closeEventGroup()
        #expect(undoManager.groupingLevel == 0)
        document.setText("c")
        undoManager.closeEventGroup()
        #expect(undoManager.undoCount == 2)  // one group per event

        undoManager.undo()
        #expect(document.text == "b")
        undoManager.undo()
        #expect(document.text == "")
        undoManager.closeEventGroup()  // nothing open: no effect
        #expect(undoManager.groupingLevel == 0)
    }

    @Test func closeEventGroupLeavesExplicitGroupsOpen() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        undoManager.beginUndoGrouping()
        document.setText("a")
        undoManager.closeEventGroup()
        #expect(undoManager.groupingLevel == 1)
        undoManager.endUndoGrouping()

        document.setText("b")               // opens the event group
        undoManager.beginUndoGrouping()     // nested inside it
        undoManager.closeEventGroup()
        #expect(undoManager.groupingLevel == 2)
        undoManager.endUndoGrouping()
        undoManager.closeEventGroup()
        #expect(undoManager.groupingLevel == 0)
    }

    @Test func undoClosesTheOpenTopLevelGroupFirst() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        document.setText("a")
        document.setText("ab")
        #expect(undoManager.groupingLevel == 1)
        undoManager.undo()
        #expect(undoManager.groupingLevel == 0)
        #expect(document.text == "")

        undoManager.groupsByEvent = false
        undoManager.beginUndoGrouping()
        document.setText("x")
        undoManager.undo()  // an explicit top-level group is closed the same way
        #expect(document.text == "")
    }

    @Test func redoClosesTheEventGroupFirst() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        document.setText("a")
        undoManager.redo()  // the event's group is closed, as the run loop would have closed it on Apple platforms
        #expect(undoManager.groupingLevel == 0)
        undoManager.undo()
        undoManager.redo()
        #expect(document.text == "a")
    }

    /// A context records its pending changes when the undo manager posts a checkpoint; changes recorded at the
    /// checkpoint that starts an undo are part of the current event, and are what the undo reverts.
    @Test func changesRecordedAtTheUndoCheckpointAreUndone() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        document.setText("saved")
        undoManager.closeEventGroup()
        var pending: String? = "pending"
        let flusher = CheckpointFlusher(undoManager: undoManager) {
            guard let text = pending else { return }
            pending = nil
            document.setText(text)
        }
        undoManager.undo()
        flusher.stop()
        #expect(document.text == "saved")
        #expect(undoManager.undoCount == 1)
        #expect(undoManager.redoCount == 1)
    }

    @Test func emptyGroupsAreDropped() {
        let undoManager = UndoManager()
        undoManager.beginUndoGrouping()
        undoManager.beginUndoGrouping()
        undoManager.endUndoGrouping()
        undoManager.endUndoGrouping()
        #expect(!undoManager.canUndo)
        #expect(undoManager.undoCount == 0)
        undoManager.undo()  // nothing to undo: no effect
        #expect(!undoManager.canRedo)
    }

    @Test func levelsOfUndoKeepsOnlyTheNewestGroups() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        #expect(undoManager.levelsOfUndo == 0)
        undoManager.levelsOfUndo = 2
        for text in ["1", "2", "3"] {
            document.setText(text)
            undoManager.closeEventGroup()
        }
        #expect(undoManager.undoCount == 2)
        undoManager.undo()
        undoManager.undo()
        undoManager.undo()  // the oldest group ("" → "1") was dropped
        #expect(document.text == "1")

        undoManager.levelsOfUndo = 0
        for text in ["a", "b", "c", "d"] {
            document.setText(text)
            undoManager.closeEventGroup()
        }
        #expect(undoManager.undoCount == 4)
        undoManager.levelsOfUndo = 1  // lowering the limit trims at once
        #expect(undoManager.undoCount == 1)
        undoManager.undo()
        #expect(document.text == "c")
    }

    @Test func disabledRegistrationRecordsNothingAndNests() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        undoManager.disableUndoRegistration()
        undoManager.disableUndoRegistration()
        document.setText("loaded")
        #expect(!undoManager.isUndoRegistrationEnabled)
        #expect(undoManager.groupingLevel == 0)  // not even a group was opened
        undoManager.enableUndoRegistration()
        document.setText("still not recorded")
        #expect(!undoManager.isUndoRegistrationEnabled)
        undoManager.enableUndoRegistration()
        #expect(undoManager.isUndoRegistrationEnabled)
        #expect(!undoManager.canUndo)
        document.setText("recorded")
        undoManager.undo()
        #expect(document.text == "still not recorded")
    }

    @Test func actionNamesAndMenuTitles() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        #expect(undoManager.undoActionName == "")
        #expect(undoManager.undoMenuItemTitle == "Undo")
        #expect(undoManager.redoMenuItemTitle == "Redo")
        #expect(undoManager.undoMenuTitle(forUndoActionName: "Typing") == "Undo Typing")
        #expect(undoManager.redoMenuTitle(forUndoActionName: "Typing") == "Redo Typing")
        #expect(undoManager.undoMenuTitle(forUndoActionName: "") == "Undo")

        document.setText("Draft")
        undoManager.setActionName("Rename")
        #expect(undoManager.undoActionName == "Rename")  // the open group is what undo() undoes
        undoManager.closeEventGroup()
        #expect(undoManager.undoMenuItemTitle == "Undo Rename")
        #expect(undoManager.redoActionName == "")

        undoManager.undo()
        #expect(undoManager.undoActionName == "")
        #expect(undoManager.redoActionName == "Rename")  // the redo group inherits the name
        #expect(undoManager.redoMenuItemTitle == "Redo Rename")
        undoManager.redo()
        #expect(undoManager.undoMenuItemTitle == "Undo Rename")

        undoManager.setActionName("")  // no group open: names the last undo group; empty removes the name
        #expect(undoManager.undoMenuItemTitle == "Undo")
    }

    @Test func removeAllActionsWithTargetRemovesOnlyThatTarget() {
        let undoManager = UndoManager()
        let first = UndoTestDocument(undoManager: undoManager)
        let second = UndoTestDocument(undoManager: undoManager)
        first.setText("f1")
        second.setText("s1")
        undoManager.closeEventGroup()
        first.setText("f2")
        undoManager.closeEventGroup()
        second.setText("s2")  // still open
        #expect(undoManager.undoCount == 3)

        undoManager.removeAllActions(withTarget: first)
        #expect(undoManager.undoCount == 2)  // the group holding only first's change is gone
        undoManager.undo()
        undoManager.undo()
        #expect(first.text == "f2")
        #expect(second.text == "")
        #expect(!undoManager.canUndo)
    }

    @Test func removeAllActionsEmptiesEverythingAndReenablesRegistration() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        document.setText("a")
        undoManager.closeEventGroup()
        document.setText("b")
        undoManager.closeEventGroup()
        undoManager.undo()
        document.setText("open")
        undoManager.disableUndoRegistration()
        undoManager.removeAllActions()
        #expect(!undoManager.canUndo)
        #expect(!undoManager.canRedo)
        #expect(undoManager.groupingLevel == 0)
        #expect(undoManager.isUndoRegistrationEnabled)
    }

    @Test func removeAllActionsWithTargetDoesNotReenableRegistration() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        undoManager.disableUndoRegistration()
        undoManager.removeAllActions(withTarget: document)
        #expect(!undoManager.isUndoRegistrationEnabled)
        undoManager.enableUndoRegistration()
    }

    @Test func discardableActions() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        document.setText("scrolled")
        undoManager.setActionIsDiscardable(true)
        #expect(undoManager.undoActionIsDiscardable)
        undoManager.closeEventGroup()
        #expect(undoManager.undoActionIsDiscardable)

        document.setText("edited")
        undoManager.closeEventGroup()
        #expect(!undoManager.undoActionIsDiscardable)

        undoManager.beginUndoGrouping()
        document.setText("a")
        undoManager.setActionIsDiscardable(true)
        document.setText("b")  // not discardable: the group is not
        undoManager.endUndoGrouping()
        #expect(!undoManager.undoActionIsDiscardable)
        #expect(!undoManager.redoActionIsDiscardable)
    }

    @Test func userInfoValuesFollowTheGroupToTheRedoStack() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        let icon: UndoManager.UserInfoKey = "icon"
        #expect(icon == UndoManager.UserInfoKey("icon"))
        #expect(icon.rawValue == UndoManager.UserInfoKey(rawValue: "icon").rawValue)
        document.setText("x")
        undoManager.setActionUserInfoValue("trash", forKey: icon)
        undoManager.closeEventGroup()
        #expect(undoManager.undoActionUserInfoValue(forKey: icon) as? String == "trash")
        #expect(undoManager.redoActionUserInfoValue(forKey: icon) == nil)
        undoManager.undo()
        #expect(undoManager.redoActionUserInfoValue(forKey: icon) as? String == "trash")
        #expect(undoManager.undoActionUserInfoValue(forKey: icon) == nil)
    }

    @Test func targetsAreNotRetainedAndDeallocatedTargetsAreSkipped() {
        let undoManager = UndoManager()
        weak var weakTarget: UndoTestDocument?
        var performed = false
        do {
            let target = UndoTestDocument(undoManager: undoManager)
            weakTarget = target
            undoManager.registerUndo(withTarget: target) { _ in performed = true }
            undoManager.closeEventGroup()
        }
        #expect(weakTarget == nil)  // the undo manager did not keep it alive
        #expect(undoManager.canUndo)
        undoManager.undo()
        #expect(!performed)
    }

    @Test func runLoopModesAreStored() {
        let undoManager = UndoManager()
        #expect(undoManager.runLoopModes == [.default])
        undoManager.runLoopModes = [.default, .common]
        #expect(undoManager.runLoopModes == [.default, .common])
    }

    @Test func canUndoCountsOperationsInOpenGroups() {
        let undoManager = UndoManager()
        let document = UndoTestDocument(undoManager: undoManager)
        #expect(!undoManager.canUndo)
        undoManager.beginUndoGrouping()
        #expect(!undoManager.canUndo)
        undoManager.beginUndoGrouping()
        document.setText("a")
        #expect(undoManager.canUndo)
        #expect(undoManager.undoCount == 1)
        undoManager.endUndoGrouping()
        undoManager.endUndoGrouping()
        #expect(undoManager.undoCount == 1)
    }
}
