import Foundation

// NSCoding for contexts. Apple's NSManagedObjectContext adopts NSCoding, but a context's objects, coordinator and
// parent cannot be archived; OpenCoreData archives the context's configuration only — its concurrency type, name,
// transaction author, staleness interval, whether it deletes inaccessible faults, retains registered objects and
// propagates deletes at the end of events, and a built-in merge policy's type — and decodes a new, empty context with
// them (DEVIATIONS.md: what Apple's archive holds is not documented).

/// The settings a context archives, read from or written to a coder.
struct ArchivedContextSettings {
    private enum Key {
        static let concurrencyType = "NSConcurrencyType"
        static let name = "NSName"
        static let transactionAuthor = "NSTransactionAuthor"
        static let stalenessInterval = "NSStalenessInterval"
        static let deletesInaccessibleFaults = "NSShouldDeleteInaccessibleFaults"
        static let retainsRegisteredObjects = "NSRetainsRegisteredObjects"
        static let propagatesDeletes = "NSPropagatesDeletesAtEndOfEvent"
        static let mergePolicyType = "NSMergePolicyType"
    }

    var concurrencyType: NSManagedObjectContextConcurrencyType
    var name: String?
    var transactionAuthor: String?
    var stalenessInterval: TimeInterval
    var deletesInaccessibleFaults: Bool
    var retainsRegisteredObjects: Bool
    var propagatesDeletes: Bool
    var mergePolicyType: NSMergePolicyType?

    init(of context: NSManagedObjectContext) {
        concurrencyType = context.concurrencyType
        name = context.name
        transactionAuthor = context.transactionAuthor
        stalenessInterval = context.stalenessInterval
        deletesInaccessibleFaults = context.shouldDeleteInaccessibleFaults
        retainsRegisteredObjects = context._retainsRegisteredObjects
        propagatesDeletes = context.propagatesDeletesAtEndOfEvent
        mergePolicyType = (context.mergePolicy as? NSMergePolicy)?.mergeType
    }

    /// The settings in a coder written by `encode(with:)`; nil when it holds no context.
    init?(coder: NSCoder) {
        // Linux Foundation's unarchiver stops the process when asked for a key it does not have: ask first.
        let scalarKeys = [Key.concurrencyType, Key.stalenessInterval, Key.deletesInaccessibleFaults, Key.retainsRegisteredObjects, Key.propagatesDeletes]
        guard scalarKeys.allSatisfy({ coder.containsValue(forKey: $0) }),
              let type = NSManagedObjectContextConcurrencyType(rawValue: UInt(clamping: coder.decodeInt64(forKey: Key.concurrencyType))) else { return nil }
        func string(_ key: String) -> String? {
            guard coder.containsValue(forKey: key) else { return nil }
            let value = coder.decodeObject(forKey: key)
            return (value as? String) ?? (value as? NSString).map { String($0) }
        }
        concurrencyType = type
        name = string(Key.name)
        transactionAuthor = string(Key.transactionAuthor)
        stalenessInterval = coder.decodeDouble(forKey: Key.stalenessInterval)
        deletesInaccessibleFaults = coder.decodeBool(forKey: Key.deletesInaccessibleFaults)
        retainsRegisteredObjects = coder.decodeBool(forKey: Key.retainsRegisteredObjects)
        propagatesDeletes = coder.decodeBool(forKey: Key.propagatesDeletes)
        mergePolicyType = coder.containsValue(forKey: Key.mergePolicyType)
            ? NSMergePolicyType(rawValue: UInt(clamping: coder.decodeInt64(forKey: Key.mergePolicyType))) : nil
    }

    func encode(with coder: NSCoder) {
        coder.encode(Int64(concurrencyType.rawValue), forKey: Key.concurrencyType)
        coder.encode(name.map { NSString(string: $0) }, forKey: Key.name)
        coder.encode(transactionAuthor.map { NSString(string: $0) }, forKey: Key.transactionAuthor)
        coder.encode(stalenessInterval, forKey: Key.stalenessInterval)
        coder.encode(deletesInaccessibleFaults, forKey: Key.deletesInaccessibleFaults)
        coder.encode(retainsRegisteredObjects, forKey: Key.retainsRegisteredObjects)
        coder.encode(propagatesDeletes, forKey: Key.propagatesDeletes)
        if let mergePolicyType { coder.encode(Int64(mergePolicyType.rawValue), forKey: Key.mergePolicyType) }
    }

    /// Sets the settings on a new context (before it is used, so on any thread).
    func apply(to context: NSManagedObjectContext) {
        context.name = name
        context.transactionAuthor = transactionAuthor
        context.stalenessInterval = stalenessInterval
        context.shouldDeleteInaccessibleFaults = deletesInaccessibleFaults
        context._retainsRegisteredObjects = retainsRegisteredObjects
        context.propagatesDeletesAtEndOfEvent = propagatesDeletes
        if let mergePolicyType { context.mergePolicy = NSMergePolicy(merge: mergePolicyType) }
    }
}

extension NSManagedObjectContext: NSCoding {
    /// Archives the context's configuration (not its objects, coordinator or parent): see
    /// `init?(coder:)`.
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: context, requiringSecureCoding: false)
    /// ```
    public func encode(with coder: NSCoder) {
        ArchivedContextSettings(of: self).encode(with: coder)
    }
}
