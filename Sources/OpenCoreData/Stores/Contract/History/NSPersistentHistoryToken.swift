/// A bookmark in persistent history: for each store, the number of the last transaction it covers. Keep the token
/// of the last transaction you processed (it archives with `NSKeyedArchiver`) and fetch the history after it.
///
/// For example:
/// ```swift
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request) as? NSPersistentHistoryResult
/// for transaction in result?.result as? [NSPersistentHistoryTransaction] ?? [] {
///     context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
///     lastToken = transaction.token
/// }
/// let saved = try NSKeyedArchiver.archivedData(withRootObject: lastToken!, requiringSecureCoding: true)
/// ```
open class NSPersistentHistoryToken: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.

    /// The last transaction number covered, by store identifier (`NSStoreUUID`).
    let transactionNumbers: [String: Int64]

    init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
        super.init()
    }

    /// The transaction number the token gives for a store, if it covers that store.
    func transactionNumber(forStore identifier: String) -> Int64? { transactionNumbers[identifier] }

    // MARK: NSSecureCoding

    public static var supportsSecureCoding: Bool { true }

    private static let numbersKey = "storeTokens"

    /// Archives the token (its store identifiers and transaction numbers).
    ///
    /// For example:
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
    /// ```
    open func encode(with coder: NSCoder) {
        let dictionary = NSMutableDictionary()
        for (store, number) in transactionNumbers { dictionary[NSString(string: store)] = NSNumber(value: number) }
        coder.encode(dictionary, forKey: Self.numbersKey)
    }

    /// Reads an archived token; nil for an archive that does not hold one.
    ///
    /// For example:
    /// ```swift
    /// let token = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: data)
    /// ```
    public required init?(coder: NSCoder) {
        guard let dictionary = coder.decodeObject(of: [NSDictionary.self, NSString.self, NSNumber.self], forKey: Self.numbersKey) as? NSDictionary else {
            return nil
        }
        var numbers: [String: Int64] = [:]
        for (key, value) in dictionary {
            guard let store = (key as? String) ?? (key as? NSString).map({ String($0) }), let number = value as? NSNumber else { return nil }
            numbers[store] = number.int64Value
        }
        transactionNumbers = numbers
        super.init()
    }

    // MARK: NSObject

    /// The token itself (tokens are immutable).
    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPersistentHistoryToken else { return false }
        return other.transactionNumbers == transactionNumbers
    }

    open override var hash: Int {
        var hasher = Hasher()
        for (store, number) in transactionNumbers.sorted(by: { $0.key < $1.key }) {
            hasher.combine(store)
            hasher.combine(number)
        }
        return hasher.finalize()
    }

    open override var description: String {
        let body = transactionNumbers.sorted { $0.key < $1.key }.map { "\"\($0.key)\" = \($0.value);" }.joined(separator: " ")
        return "<NSPersistentHistoryToken - {\(body)}>"
    }
}
