import Foundation
import Testing
@testable import OpenCoreData

/// An object's life cycle is one state (`ObjectLifeCycle`) changed only by its transitions; the public flags are read
/// from it, and with internal checks on a context stops at the first disagreement with its change sets.
@Suite("Object life cycle")
struct ObjectLifeCycleTests {
    typealias Change = ObjectLifeCycle.Change

    /// Every change state, reached through transitions from a new object.
    static func state(_ change: Change, fault: Bool = false) -> ObjectLifeCycle {
        var state = ObjectLifeCycle.new
        switch change {
        case .none: break
        case .updated: state.update()
        case .inserted: state.insert()
        case .deleted: state.delete()
        case .updatedThenDeleted: state.update(); state.delete()
        case .insertedThenDeleted: state.insert(); state.delete()
        case .deletedElsewhere: state.deleteElsewhere()
        }
        if fault { state.turnIntoFault() }
        return state
    }

    @Test func deletingThenUndeletingGivesEachStateBack() {
        let pairs: [(Change, Change)] = [
            (.none, .deleted), (.updated, .updatedThenDeleted), (.inserted, .insertedThenDeleted),
        ]
        for (before, deleted) in pairs {
            var state = Self.state(before)
            state.delete()
            #expect(state.change == deleted, "delete() from \(before)")
            #expect(state.isDeleted)
            state.delete()
            #expect(state.change == deleted, "a second delete() changes nothing")
            state.undelete()
            #expect(state.change == before, "undelete() from \(deleted)")
        }
    }

    @Test func theFlagsAreReadFromTheState() {
        let expected: [(Change, inserted: Bool, updated: Bool, deleted: Bool)] = [
            (.none, false, false, false),
            (.updated, false, true, false),
            (.inserted, true, false, false),
            (.deleted, false, false, true),
            (.updatedThenDeleted, false, true, true),
            (.insertedThenDeleted, true, false, true),
            (.deletedElsewhere, false, false, true),
        ]
        for (change, inserted, updated, deleted) in expected {
            let state = Self.state(change)
            #expect(state.change == change)
            #expect(state.isInserted == inserted, "isInserted of \(change)")
            #expect(state.isUpdated == updated, "isUpdated of \(change)")
            #expect(state.isDeleted == deleted, "isDeleted of \(change)")
            #expect(state.hasChanges == (change != .none), "hasChanges of \(change)")
            #expect(state.isDeletedHere == (deleted && change != .deletedElsewhere), "isDeletedHere of \(change)")
        }
    }

    @Test func anUpdateIsDiscardedButADeletionStays() {
        var updated = Self.state(.updated)
        updated.discardUpdate()
        #expect(updated.change == .none)
        var updatedThenDeleted = Self.state(.updatedThenDeleted)
        updatedThenDeleted.discardUpdate()
        #expect(updatedThenDeleted.change == .deleted)
        var inserted = Self.state(.inserted)
        inserted.discardUpdate()
        #expect(inserted.change == .inserted, "an insertion is not an update")
        var deleted = Self.state(.deleted)
        deleted.update()
        #expect(deleted.change == .updatedThenDeleted, "detectConflicts(for:) on a deleted object")
    }

    @Test func aDeletionElsewhereKeepsAnInsertionInserted() {
        var inserted = Self.state(.inserted)
        inserted.deleteElsewhere()
        #expect(inserted.change == .insertedThenDeleted, "an insertion has no row: the save leaves it out")
        var updated = Self.state(.updated)
        updated.deleteElsewhere()
        #expect(updated.change == .deletedElsewhere)
        #expect(!updated.isUpdated, "its own changes are moot")
    }

    @Test func faultingIsOrthogonalToTheChange() {
        for change in [Change.none, .inserted, .deleted, .insertedThenDeleted, .deletedElsewhere] {
            var state = Self.state(change, fault: true)
            #expect(state.isFault && state.change == change, "\(change) fault")
            state.load()
            #expect(!state.isFault && state.change == change, "\(change) loaded")
        }
        #expect(ObjectLifeCycle.fault.isFault && ObjectLifeCycle.fault.change == .none)
        #expect(!ObjectLifeCycle.new.isFault && ObjectLifeCycle.new.change == .none)
        #expect("\(Self.state(.inserted, fault: true))" == "inserted fault")
    }

    @Test func savingAndLeavingEndEveryChange() {
        for change in [Change.updated, .inserted] {
            var state = Self.state(change)
            state.save()
            #expect(state.change == .none, "save() from \(change)")
        }
        for change in [Change.inserted, .deleted, .updatedThenDeleted, .insertedThenDeleted, .deletedElsewhere] {
            var state = Self.state(change, fault: change != .updatedThenDeleted)
            state.leaveContext()
            #expect(state.change == .none, "leaveContext() from \(change)")
            #expect(state.isFault == (change != .updatedThenDeleted), "a fault stays a fault")
        }
    }

    // MARK: Through the public API

    @Test func anInsertedObjectRefreshedIntoAFaultIsADeletedInsertion() throws {
        let stack = try MoodyStack()
        try stack.context.performAndWait {
            let mood = Mood(context: stack.context)
            stack.context.refresh(mood, mergeChanges: false)
            #expect(mood.lifeCycle == ObjectLifeCycle.state(inserted: true, fault: true))
            _ = mood.creatorID   // an inaccessible fault: fulfilled as deleted
            #expect(mood.lifeCycle.change == .insertedThenDeleted)
            #expect(stack.context.deletedSet.contains(mood), "deleted as any inserted object is")
            #expect(stack.context.deletedObjects.isEmpty, "deleted insertions are not reported")
            stack.context._checkInvariants(of: [mood])
            #expect(!stack.context.hasChanges, "the save has nothing to write")
            try stack.context.save()
        }
    }

    @Test func anObjectWhoseRowWasDeletedElsewhereReadsAsDeleted() throws {
        let stack = try MoodyStack()
        let id = try stack.context.performAndWait {
            let mood = Mood(context: stack.context)
            try stack.context.save()
            return mood.objectID
        }
        let other = stack.newContext()
        let fault = other.performAndWait { other.object(with: id) }
        try stack.context.performAndWait {
            stack.context.delete(stack.context.object(with: id))
            try stack.context.save()
        }
        other.performAndWait {
            other.stalenessInterval = 0
            other.refreshAllObjects()
            _ = fault.value(forKey: "creatorID")   // an inaccessible fault: fulfilled as deleted
            #expect(fault.lifeCycle.change == .deletedElsewhere)
            #expect(fault.isDeleted && !other.deletedSet.contains(fault), "its row is gone: the save has nothing to do")
            other._checkInvariants(of: [fault])
        }
    }

    // MARK: Internal checks

    @Test func theChecksStopAContextWhoseChangeSetsDisagreeWithAnObject() async {
        await #expect(processExitsWith: .failure) {
            setenv("OPENCOREDATA_INTERNAL_CHECKS", "1", 1)
            let stack = try! MoodyStack()
            stack.context.performAndWait {
                let mood = Mood(context: stack.context)
                stack.context.processPendingChanges()
                stack.context.insertedSet.remove(mood)   // the bookkeeping breaks
                mood.creatorID = "touched"
                stack.context.processPendingChanges()    // the end of the event checks what it touched
            }
        }
    }

    @Test func theChecksStopAnIllegalTransition() async {
        await #expect(processExitsWith: .failure) {
            setenv("OPENCOREDATA_INTERNAL_CHECKS", "1", 1)
            var state = ObjectLifeCycle.new
            state.update()
            state.turnIntoFault()   // a fault has no unsaved changes
        }
    }

    @Test func withTheChecksOffAnIllegalTransitionIsNotChecked() {
        guard !InternalChecks.isEnabled else { return }   // CI's checked run: the exit test above covers it
        var state = ObjectLifeCycle.new
        state.update()
        state.turnIntoFault()
        #expect(state.isFault && state.isUpdated)
    }
}

extension ObjectLifeCycle {
    /// A state for comparisons in tests.
    static func state(inserted: Bool, fault: Bool) -> ObjectLifeCycle {
        var state = ObjectLifeCycle.new
        if inserted { state.insert() }
        if fault { state.turnIntoFault() }
        return state
    }
}
