// NSCoding for fetch indexes: an index archives as its name, its elements (each archived in turn) and its
// partial-index predicate's format; an element as its property's name, its collation type and its order. (Apple's
// keyed layout of these classes is private; see DEVIATIONS.md.)

private enum FetchIndexCodingKeys {
    static let name = "NSFetchIndexName"
    static let elements = "NSFetchIndexElements"
    static let partialIndexPredicate = "NSPartialIndexPredicateFormat"
    static let propertyName = "NSPropertyName"
    static let collationType = "NSCollationType"
    static let isAscending = "NSIsAscending"
}

/// Reads a string the coder may not hold (Linux Foundation's unarchiver stops the process when asked for a key it
/// does not have, so it is asked first).
private func archivedString(_ coder: NSCoder, _ key: String) -> String? {
    guard coder.containsValue(forKey: key) else { return nil }
    let value = coder.decodeObject(forKey: key)
    return (value as? String) ?? (value as? NSString).map { String($0) }
}

/// What a coder written by `NSFetchIndexDescription.encode(with:)` holds.
struct ArchivedFetchIndex {
    var name: String
    var elements: [NSFetchIndexElementDescription]
    var partialIndexPredicateFormat: String?

    init?(coder: NSCoder) {
        guard let name = archivedString(coder, FetchIndexCodingKeys.name) else { return nil }
        self.name = name
        var elements: [NSFetchIndexElementDescription] = []
        if coder.containsValue(forKey: FetchIndexCodingKeys.elements) {
            guard let array = coder.decodeObject(forKey: FetchIndexCodingKeys.elements) as? NSArray else { return nil }
            for element in array {
                guard let element = element as? NSFetchIndexElementDescription else { return nil }
                elements.append(element)
            }
        }
        self.elements = elements
        partialIndexPredicateFormat = archivedString(coder, FetchIndexCodingKeys.partialIndexPredicate)
    }
}

/// What a coder written by `NSFetchIndexElementDescription.encode(with:)` holds.
struct ArchivedFetchIndexElement {
    var propertyName: String
    var collationType: NSFetchIndexElementType
    var isAscending: Bool

    init?(coder: NSCoder) {
        guard let propertyName = archivedString(coder, FetchIndexCodingKeys.propertyName),
              coder.containsValue(forKey: FetchIndexCodingKeys.collationType), coder.containsValue(forKey: FetchIndexCodingKeys.isAscending),
              let collationType = NSFetchIndexElementType(rawValue: UInt(clamping: coder.decodeInt64(forKey: FetchIndexCodingKeys.collationType)))
        else { return nil }
        self.propertyName = propertyName
        self.collationType = collationType
        isAscending = coder.decodeBool(forKey: FetchIndexCodingKeys.isAscending)
    }
}

extension NSFetchIndexDescription: NSCoding {
    /// Archives the index: its name, elements and partial-index predicate (not its entity).
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: index, requiringSecureCoding: false)
    /// ```
    public func encode(with coder: NSCoder) {
        coder.encode(NSString(string: _name), forKey: FetchIndexCodingKeys.name)
        coder.encode(NSArray(array: _elements), forKey: FetchIndexCodingKeys.elements)
        if let format = _partialIndexPredicateFormat {
            coder.encode(NSString(string: format), forKey: FetchIndexCodingKeys.partialIndexPredicate)
        }
    }
}

extension NSFetchIndexElementDescription: NSCoding {
    /// Archives the element: its property's name, collation type and order.
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: element, requiringSecureCoding: false)
    /// ```
    public func encode(with coder: NSCoder) {
        coder.encode(NSString(string: propertyName ?? ""), forKey: FetchIndexCodingKeys.propertyName)
        coder.encode(Int64(_collationType.rawValue), forKey: FetchIndexCodingKeys.collationType)
        coder.encode(_isAscending, forKey: FetchIndexCodingKeys.isAscending)
    }
}
