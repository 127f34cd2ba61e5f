/// The kinds of merge policy.
public enum NSMergePolicyType: UInt, Sendable, Hashable {
    /// Fail the save and report the conflicts (the default).
    case errorMergePolicyType = 0
    /// Merge property by property; where both changed a property, the store's value wins.
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Merge property by property; where both changed a property, the context's value wins.
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// Write the context's objects entirely, overwriting the store.
    case overwriteMergePolicyType = 3
    /// Discard the context's changes to the objects in conflict.
    case rollbackMergePolicyType = 4
}

/// How a context resolves conflicts when it saves: optimistic-locking conflicts (another context or process
/// changed a row since this context read it) and uniqueness-constraint conflicts.
///
/// For example:
/// ```swift
/// context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
/// // or a subclass that resolves conflicts its own way:
/// final class KeepNewest: NSMergePolicy {
///     override func resolve(mergeConflicts list: [Any]) throws { … ; try super.resolve(mergeConflicts: list) }
/// }
/// ```
open class NSMergePolicy: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable (`mergeType` is a let); subclasses are expected to be stateless too.

    /// The policy's type.
    public let mergeType: NSMergePolicyType

    /// Creates a policy of a type (subclasses pass the type whose behaviour `super` provides).
    public init(merge ty: NSMergePolicyType) {
        mergeType = ty
        super.init()
    }

    /// Fail on conflicts.
    public static let error = NSMergePolicy(merge: .errorMergePolicyType)
    /// Property-level merge, the store winning.
    public static let mergeByPropertyStoreTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    /// Property-level merge, the context winning.
    public static let mergeByPropertyObjectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    /// Overwrite the store with the context's objects.
    public static let overwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
    /// Discard the context's conflicting changes.
    public static let rollback = NSMergePolicy(merge: .rollbackMergePolicyType)

    /// Resolves optimistic-locking conflicts (`NSMergeConflict`s) by changing the conflicting objects; the save
    /// is then retried. The error policy throws `NSManagedObjectMergeError` (133020).
    open func resolve(mergeConflicts list: [Any]) throws {
        try resolve(optimisticLockingConflicts: list.compactMap { $0 as? NSMergeConflict })
    }

    /// Resolves optimistic-locking conflicts (the typed form `resolve(mergeConflicts:)` calls).
    open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        guard mergeType != .errorMergePolicyType else {
            throw CoreDataError.make(NSManagedObjectMergeError, "Could not merge changes: \(list.count) object(s) changed in the store since they were read",
                                     userInfo: [NSPersistentStoreSaveConflictsErrorKey: list])
        }
        try MergeResolution.resolve(list, policy: mergeType)
    }

    /// Resolves uniqueness-constraint conflicts. The error policy throws `NSManagedObjectConstraintMergeError`
    /// (133021); the object-trump and overwrite policies keep the saved objects (replacing the stored row), the
    /// store-trump and rollback policies keep the stored row (discarding the saved objects).
    open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        guard mergeType != .errorMergePolicyType else {
            throw CoreDataError.make(NSManagedObjectConstraintMergeError, "Could not save: \(list.count) uniqueness constraint conflict(s)",
                                     userInfo: [NSPersistentStoreSaveConflictsErrorKey: list])
        }
        for conflict in list { MergeResolution.resolve(conflict, policy: mergeType) }
    }
}

/// The default merge policy of every context: fail on conflicts.
public var NSErrorMergePolicy: AnyObject { NSMergePolicy.error }
/// Property-level merge, the store winning.
public var NSMergeByPropertyStoreTrumpMergePolicy: AnyObject { NSMergePolicy.mergeByPropertyStoreTrump }
/// Property-level merge, the context winning.
public var NSMergeByPropertyObjectTrumpMergePolicy: AnyObject { NSMergePolicy.mergeByPropertyObjectTrump }
/// Overwrite the store with the context's objects.
public var NSOverwriteMergePolicy: AnyObject { NSMergePolicy.overwrite }
/// Discard the context's conflicting changes.
public var NSRollbackMergePolicy: AnyObject { NSMergePolicy.rollback }
