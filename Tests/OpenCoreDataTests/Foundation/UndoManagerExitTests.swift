import Testing
@testable import OpenCoreData

/// What Apple's undo manager and value transformer raise as exceptions stops the program here, with a message.
@Suite struct FoundationProgrammerErrorTests {
    @Test func endUndoGroupingWithNoOpenGroupStops() async {
        await #expect(processExitsWith: .failure) {
            UndoManager().endUndoGrouping()
        }
    }

    @Test func enableUndoRegistrationWithoutADisableStops() async {
        await #expect(processExitsWith: .failure) {
            UndoManager().enableUndoRegistration()
        }
    }

    @Test func undoWithANestedGroupOpenStops() async {
        await #expect(processExitsWith: .failure) {
            let undoManager = UndoManager()
            undoManager.beginUndoGrouping()
            undoManager.beginUndoGrouping()
            undoManager.undo()
        }
    }

    @Test func registeringWithNoGroupWhileGroupsByEventIsFalseStops() async {
        await #expect(processExitsWith: .failure) {
            let undoManager = UndoManager()
            undoManager.groupsByEvent = false
            let target = UndoTestDocument(undoManager: undoManager)
            undoManager.registerUndo(withTarget: target) { _ in }
        }
    }

    @Test func redoDuringAnUndoStops() async {
        await #expect(processExitsWith: .failure) {
            let undoManager = UndoManager()
            let target = UndoTestDocument(undoManager: undoManager)
            undoManager.registerUndo(withTarget: target) { $0.undoManager.redo() }
            undoManager.undo()
        }
    }

    @Test func undoNestedGroupAfterOperationsInTheOpenGroupStops() async {
        await #expect(processExitsWith: .failure) {
            let undoManager = UndoManager()
            let target = UndoTestDocument(undoManager: undoManager)
            undoManager.beginUndoGrouping()
            target.setText("a")
            undoManager.undoNestedGroup()
        }
    }

    @Test func redoWithAnExplicitGroupOpenStops() async {
        await #expect(processExitsWith: .failure) {
            let undoManager = UndoManager()
            undoManager.beginUndoGrouping()
            undoManager.redo()
        }
    }

    @Test func reverseTransformingWithANonReversibleTransformerStops() async {
        await #expect(processExitsWith: .failure) {
            _ = ValueTransformer(forName: .isNilTransformerName)?.reverseTransformedValue(NSNumber(value: true))
        }
    }

    /// The exit tests above would pass for any crash; this one shows the same operations succeed when valid.
    @Test func theSameOperationsSucceedWhenBalanced() {
        let undoManager = UndoManager()
        undoManager.disableUndoRegistration()
        undoManager.enableUndoRegistration()
        undoManager.beginUndoGrouping()
        undoManager.endUndoGrouping()
        undoManager.groupsByEvent = false
        undoManager.beginUndoGrouping()
        let target = UndoTestDocument(undoManager: undoManager)
        undoManager.registerUndo(withTarget: target) { _ in }
        undoManager.undo()
        undoManager.redo()
        #expect(undoManager.groupingLevel == 0)
        #expect(ValueTransformer(forName: .negateBooleanTransformerName)?.reverseTransformedValue(true) as? Bool == false)
    }
}
