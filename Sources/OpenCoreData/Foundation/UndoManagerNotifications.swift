// The notifications an UndoManager posts, under Apple's names. Each is posted on the thread that calls
// the undo manager, with the undo manager as the notification's object.

import Foundation

extension NSNotification.Name {
    /// Posted when an undo manager opens or closes an undo group (except when it opens a top-level group),
    /// and when `canRedo` checks the redo stack. Observers record their pending changes as undo actions.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSUndoManagerCheckpoint, object: undoManager, queue: nil) { _ in … }
    /// ```
    public static let NSUndoManagerCheckpoint = NSNotification.Name("NSUndoManagerCheckpointNotification")

    /// Posted just before an undo manager performs an undo.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSUndoManagerWillUndoChange, object: undoManager, queue: nil) { _ in … }
    /// ```
    public static let NSUndoManagerWillUndoChange = NSNotification.Name("NSUndoManagerWillUndoChangeNotification")

    /// Posted just after an undo manager performs an undo.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSUndoManagerDidUndoChange, object: undoManager, queue: nil) { _ in … }
    /// ```
    public static let NSUndoManagerDidUndoChange = NSNotification.Name("NSUndoManagerDidUndoChangeNotification")

    /// Posted just before an undo manager performs a redo.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSUndoManagerWillRedoChange, object: undoManager, queue: nil) { _ in … }
    /// ```
    public static let NSUndoManagerWillRedoChange = NSNotification.Name("NSUndoManagerWillRedoChangeNotification")

    /// Posted just after an undo manager performs a redo.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSUndoManagerDidRedoChange, object: undoManager, queue: nil) { _ in … }
    /// ```
    public static let NSUndoManagerDidRedoChange = NSNotification.Name("NSUndoManagerDidRedoChangeNotification")

    /// Posted whenever an undo manager opens an undo group (in `beginUndoGrouping()`).
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSUndoManagerDidOpenUndoGroup, object: undoManager, queue: nil) { _ in … }
    /// ```
    public static let NSUndoManagerDidOpenUndoGroup = NSNotification.Name("NSUndoManagerDidOpenUndoGroupNotification")

    /// Posted before an undo manager closes an undo group (in `endUndoGrouping()`). Its `userInfo` holds
    /// ``NSUndoManagerGroupIsDiscardableKey`` with a Boolean `NSNumber` true when the whole group is discardable.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSUndoManagerWillCloseUndoGroup, object: undoManager, queue: nil) { note in
    ///     let discardable = note.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? Bool ?? false
    /// }
    /// ```
    public static let NSUndoManagerWillCloseUndoGroup = NSNotification.Name("NSUndoManagerWillCloseUndoGroupNotification")

    /// Posted after an undo manager closes an undo group (in `endUndoGrouping()`).
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSUndoManagerDidCloseUndoGroup, object: undoManager, queue: nil) { _ in … }
    /// ```
    public static let NSUndoManagerDidCloseUndoGroup = NSNotification.Name("NSUndoManagerDidCloseUndoGroupNotification")
}

/// The `userInfo` key of `NSUndoManagerWillCloseUndoGroup` whose value, a Boolean `NSNumber` true, says
/// that the group being closed contains only discardable actions (see `UndoManager.setActionIsDiscardable(_:)`).
///
/// ```swift
/// let discardable = notification.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? Bool ?? false
/// ```
public let NSUndoManagerGroupIsDiscardableKey = "NSUndoManagerGroupIsDiscardableKey"
