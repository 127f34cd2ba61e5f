extension NSMergePolicy {
    /// Creates a policy of a type: Apple's Swift spelling of `init(merge:)` (both exist at Apple).
    ///
    /// ```swift
    /// context.mergePolicy = NSMergePolicy(mergeType: .mergeByPropertyObjectTrumpMergePolicyType)
    /// ```
    public convenience init(mergeType ty: NSMergePolicyType) {
        self.init(merge: ty)
    }
}

extension NSConstraintConflict {
    /// Creates a constraint conflict description with the labels Swift derives from Apple's Objective-C selector
    /// (`initWithConstraint:databaseObject:databaseSnapshot:conflictingObjects:conflictingSnapshots:`); the same as
    /// `init(constraint:database:databaseSnapshot:conflicting:conflictingSnapshots:)`. Snapshot keys that are not
    /// strings are dropped (property names are strings).
    ///
    /// ```swift
    /// let conflict = NSConstraintConflict(constraint: ["email"], databaseObject: stored, databaseSnapshot: nil,
    ///                                     conflictingObjects: [inserted], conflictingSnapshots: [])
    /// ```
    public convenience init(constraint contraint: [String], databaseObject: NSManagedObject?, databaseSnapshot: [AnyHashable: Any]?,
                            conflictingObjects: [NSManagedObject], conflictingSnapshots: [Any]) {
        let snapshot = databaseSnapshot.map { values in
            Dictionary(values.compactMap { key, value in (key.base as? String).map { ($0, value) } }, uniquingKeysWith: { first, _ in first })
        }
        self.init(constraint: contraint, database: databaseObject, databaseSnapshot: snapshot, conflicting: conflictingObjects,
                  conflictingSnapshots: conflictingSnapshots)
    }
}
