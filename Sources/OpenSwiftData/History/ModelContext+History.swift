import Foundation
import OpenCoreData

extension ModelContext {
    /// The store's history transactions `descriptor` matches: the saves of every context and process, each with the
    /// models it inserted, updated (and which attributes) and deleted (and their tombstones).
    ///
    /// ```swift
    /// let since = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
    /// ```
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        catchUp()
        guard T.self == DefaultHistoryTransaction.self else {
            throw SwiftDataError(.unsupportedPredicate, "Only DefaultHistoryTransaction is fetched from Core Data's history.")
        }
        var transactions = try coreDataHistory().map { defaultTransaction($0) as! T }
        if let predicate = descriptor.predicate { transactions = try transactions.filter { try predicate.evaluate($0) } }
        if !descriptor.sortBy.isEmpty { transactions.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit { transactions = Array(transactions.prefix(max(limit, 0))) }
        return transactions
    }

    /// Deletes the history transactions `descriptor` matches, and the ones before the newest of them (Core Data keeps
    /// history as a sequence and deletes its beginning: DEVIATIONS.md SD6).
    ///
    /// ```swift
    /// try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= processed }))
    /// ```
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        catchUp()
        guard T.self == DefaultHistoryTransaction.self else {
            throw SwiftDataError(.unsupportedPredicate, "Only DefaultHistoryTransaction is deleted from Core Data's history.")
        }
        let raw = try coreDataHistory()
        let history = raw.map(defaultTransaction)
        // The descriptor's limit does not narrow a deletion; its predicate picks the newest transaction to delete up to.
        let matched = try descriptor.predicate.map { predicate in try history.filter { try predicate.evaluate($0 as! T) } } ?? history
        guard let newest = matched.max(by: { $0.transactionIdentifier < $1.transactionIdentifier }) else { return }
        let next = raw.first { $0.transactionNumber > newest.transactionIdentifier && $0.storeID == newest.storeIdentifier }
        _ = try managedObjectContext.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: next))
    }

    /// The name saves of this context record as their author in the history.
    ///
    /// ```swift
    /// importer.modelContext.author = "importer"
    /// ```
    public var author: String? {
        get { managedObjectContext.transactionAuthor }
        set { managedObjectContext.transactionAuthor = newValue }
    }

    /// A tombstone value as a `Sendable` one (the stored value types; a number as `Int64` or `Double`).
    private static func sendable(_ value: Any) -> any Sendable {
        switch value {
        case let value as String: value
        case let value as Date: value
        case let value as Data: value
        case let value as UUID: value
        case let value as URL: value
        case let value as Decimal: value
        case let value as Int: value
        case let value as Int64: value
        case let value as Double: value
        case let value as Bool: value
        case let value as NSNumber:
            value.objCType.pointee == CChar(UInt8(ascii: "d")) || value.objCType.pointee == CChar(UInt8(ascii: "f")) ? value.doubleValue : value.int64Value
        default: String(describing: value)
        }
    }

    private func coreDataHistory() throws -> [NSPersistentHistoryTransaction] {
        let result = try managedObjectContext.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
        return ((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction]) ?? []
    }

    private func defaultTransaction(_ transaction: NSPersistentHistoryTransaction) -> DefaultHistoryTransaction {
        DefaultHistoryTransaction(storeIdentifier: transaction.storeID, bundleIdentifier: transaction.bundleID, processIdentifier: transaction.processID,
                                  transactionIdentifier: transaction.transactionNumber,
                                  token: DefaultHistoryToken(storeIdentifier: transaction.storeID, transactionNumber: transaction.transactionNumber),
                                  author: transaction.author, changes: (transaction.changes ?? []).compactMap(historyChange), timestamp: transaction.timestamp)
    }

    private func historyChange(_ change: NSPersistentHistoryChange) -> HistoryChange? {
        guard let type = container.schema.modelTypes[change.changedObjectID.entity.name ?? ""] else { return nil }
        return historyChange(change, of: type)
    }

    private func historyChange<M: PersistentModel>(_ change: NSPersistentHistoryChange, of type: M.Type) -> HistoryChange {
        let id = PersistentIdentifier(change.changedObjectID)
        let transaction = change.transaction?.transactionNumber ?? 0
        let layout = ModelLayout.of(M.self)
        func keyPath(_ name: String) -> PartialKeyPath<M>? {
            layout.properties.first { $0.name == name }?.keyPath as? PartialKeyPath<M>
        }
        switch change.changeType {
        case .insert:
            return .insert(DefaultHistoryInsert<M>(changedPersistentIdentifier: id, changeIdentifier: change.changeID, transactionIdentifier: transaction))
        case .update:
            let attributes = (change.updatedProperties ?? []).map(\.name).sorted().compactMap(keyPath)
            return .update(DefaultHistoryUpdate<M>(changedPersistentIdentifier: id, changeIdentifier: change.changeID, transactionIdentifier: transaction,
                                                   updatedAttributes: attributes))
        case .delete:
            let values = (change.tombstone ?? [:]).compactMap { key, value -> (keyPath: PartialKeyPath<M>, value: (any Sendable)?)? in
                guard let name = key as? String, let path = keyPath(name) else { return nil }
                return (path, ModelValues.unwrapped(value).map(Self.sendable))
            }
            return .delete(DefaultHistoryDelete<M>(changedPersistentIdentifier: id, changeIdentifier: change.changeID, transactionIdentifier: transaction,
                                                   tombstone: HistoryTombstone(values: values)))
        @unknown default:
            return .update(DefaultHistoryUpdate<M>(changedPersistentIdentifier: id, changeIdentifier: change.changeID, transactionIdentifier: transaction,
                                                   updatedAttributes: []))
        }
    }
}
