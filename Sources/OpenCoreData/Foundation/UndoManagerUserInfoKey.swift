import Foundation

extension UndoManager {
    /// A key for user info values attached to undo and redo actions, as Apple's `UndoManager.UserInfoKey`.
    ///
    /// Extend it with your own keys:
    ///
    /// ```swift
    /// extension UndoManager.UserInfoKey {
    ///     static let icon: UndoManager.UserInfoKey = "icon"
    /// }
    /// undoManager.setActionUserInfoValue("trash", forKey: .icon)
    /// ```
    public struct UserInfoKey: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
        /// The key as a string: `UndoManager.UserInfoKey("icon").rawValue` is `"icon"`.
        public var rawValue: String

        /// Creates a key from a string: `UndoManager.UserInfoKey("icon")`.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// Creates a key from a string: `UndoManager.UserInfoKey(rawValue: "icon")`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Creates a key from a string literal: `let key: UndoManager.UserInfoKey = "icon"`.
        public init(stringLiteral value: String) {
            self.rawValue = value
        }
    }
}
