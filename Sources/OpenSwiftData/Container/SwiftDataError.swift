import Foundation

/// An error of SwiftData's own (Core Data's errors — validation, conflicts, store errors — surface as the
/// `NSError`s Core Data throws).
///
/// ```swift
/// do { _ = try context.fetch(descriptor) } catch let error as SwiftDataError where error == .unsupportedPredicate { … }
/// ```
public struct SwiftDataError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    enum Code: String, Sendable { case loadIssueModelContainer, unsupportedPredicate, unsupportedSortDescriptor, unsupportedKeyPath, modelValidationFailure, backwardMigration, unknownSchema }

    let code: Code
    /// What went wrong, in words (with the underlying error's description).
    public let reason: String
    /// The error underneath (a Core Data `NSError`), if any.
    public let underlyingError: (any Error)?

    init(_ code: Code, _ reason: String = "", underlying: (any Error)? = nil) {
        self.code = code
        self.reason = reason
        underlyingError = underlying
    }

    /// The container could not load its store (the reason says why: a store that cannot be read or migrated, an
    /// unsupported property type).
    public static let loadIssueModelContainer = SwiftDataError(.loadIssueModelContainer)
    /// A `#Predicate` uses an operation that has no SQL (nor `NSPredicate`) form.
    public static let unsupportedPredicate = SwiftDataError(.unsupportedPredicate)
    /// A sort descriptor whose key path is not a persisted property.
    public static let unsupportedSortDescriptor = SwiftDataError(.unsupportedSortDescriptor)
    /// A key path that is not a persisted property (prefetching, `propertiesToFetch`).
    public static let unsupportedKeyPath = SwiftDataError(.unsupportedKeyPath)
    /// A migration stage failed its validation.
    public static let modelValidationFailure = SwiftDataError(.modelValidationFailure)
    /// The store was written by a later schema version than any of the migration plan's.
    public static let backwardMigration = SwiftDataError(.backwardMigration)
    /// The store's schema is none of the migration plan's.
    public static let unknownSchema = SwiftDataError(.unknownSchema)

    /// Errors compare by kind (the reason is not compared).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { reason.isEmpty ? "SwiftDataError.\(code.rawValue)" : "SwiftDataError.\(code.rawValue): \(reason)" }
}
