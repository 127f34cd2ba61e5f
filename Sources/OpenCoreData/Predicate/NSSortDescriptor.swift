import Foundation

/// How to order objects by a key — Apple's `NSSortDescriptor` for Linux.
///
/// ```swift
/// let byName = NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))
/// let sorted = people.sorted(using: [byName])
/// ```
///
/// Supported selectors: `compare:` (numbers, strings, dates, UUIDs, data), `caseInsensitiveCompare:`,
/// `localizedCompare:`, `localizedCaseInsensitiveCompare:`, `localizedStandardCompare:`. `nil` (and `NSNull`) sorts
/// before every value when ascending, as SQL stores sort NULL first.
open class NSSortDescriptor: NSObject, NSCopying, @unchecked Sendable { // Immutable after init; a comparator closure is only called.
    /// The key path compared, or `nil` to compare the objects themselves.
    public let key: String?
    /// Whether smaller values come first.
    public let ascending: Bool
    /// The comparison method (`compare:` unless given), or `nil` when a comparator was given.
    public let selector: Selector?
    /// The Swift key path this descriptor was created from, if any.
    public let keyPath: AnyKeyPath?
    private let comparatorBlock: Comparator?

    private init(key: String?, keyPath: AnyKeyPath?, ascending: Bool, selector: Selector?, comparator: Comparator?) {
        self.key = key
        self.keyPath = keyPath
        self.ascending = ascending
        self.selector = selector
        self.comparatorBlock = comparator
        super.init()
    }

    /// Sorts by `key` with `compare:`.
    ///
    /// ```swift
    /// NSSortDescriptor(key: "age", ascending: false)
    /// ```
    public convenience init(key: String?, ascending: Bool) {
        self.init(key: key, keyPath: nil, ascending: ascending, selector: Selector("compare:"), comparator: nil)
    }

    /// Sorts by `key` with a comparison method (see the type's documentation for the supported selectors).
    ///
    /// ```swift
    /// NSSortDescriptor(key: "title", ascending: true, selector: Selector("caseInsensitiveCompare:"))
    /// ```
    public convenience init(key: String?, ascending: Bool, selector: Selector?) {
        self.init(key: key, keyPath: nil, ascending: ascending, selector: selector ?? Selector("compare:"), comparator: nil)
    }

    /// Sorts by `key` with a comparator closure.
    ///
    /// ```swift
    /// NSSortDescriptor(key: "name", ascending: true) { a, b in
    ///     (a as! String).count < (b as! String).count ? .orderedAscending : .orderedDescending
    /// }
    /// ```
    public convenience init(key: String?, ascending: Bool, comparator: @escaping Comparator) {
        self.init(key: key, keyPath: nil, ascending: ascending, selector: nil, comparator: comparator)
    }

    /// Sorts by a Swift key path. The key is named through ``KeyPathNaming``; if the root type does not name it, the
    /// descriptor still sorts objects of the root type by reading the key path directly (and ``key`` is `nil`).
    ///
    /// ```swift
    /// NSSortDescriptor(keyPath: \Book.title, ascending: true).key // "title" when Book adopts KeyPathNaming
    /// ```
    public convenience init<Root, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        self.init(key: KeyPathNames.string(for: keyPath), keyPath: keyPath, ascending: ascending,
                  selector: Selector("compare:"), comparator: nil)
    }

    /// Sorts by a Swift key path with a comparator closure.
    ///
    /// ```swift
    /// NSSortDescriptor(keyPath: \Book.title, ascending: true) { a, b in (a as! String).compare(b as! String) }
    /// ```
    public convenience init<Root, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool, comparator: @escaping Comparator) {
        self.init(key: KeyPathNames.string(for: keyPath), keyPath: keyPath, ascending: ascending, selector: nil,
                  comparator: comparator)
    }

    /// The comparator this descriptor uses on two key values (before ``ascending`` is applied).
    ///
    /// ```swift
    /// NSSortDescriptor(key: nil, ascending: true).comparator(1, 2) // .orderedAscending
    /// ```
    open var comparator: Comparator {
        if let comparatorBlock { return comparatorBlock }
        let selector = self.selector ?? Selector("compare:")
        return { a, b in
            do {
                return try Self.compareValues(a, b, selector: selector)
            } catch {
                fatalError(PredicateError.message(of: error))
            }
        }
    }

    /// The same descriptor with the opposite order (an `NSSortDescriptor`, typed `Any` as on Apple platforms).
    ///
    /// ```swift
    /// (NSSortDescriptor(key: "a", ascending: true).reversedSortDescriptor as! NSSortDescriptor).ascending // false
    /// ```
    open var reversedSortDescriptor: Any {
        NSSortDescriptor(key: key, keyPath: keyPath, ascending: !ascending, selector: selector, comparator: comparatorBlock)
    }

    /// Enables evaluation after secure decoding; always enabled here (source compatibility).
    ///
    /// ```swift
    /// descriptor.allowEvaluation()
    /// ```
    open func allowEvaluation() {}

    /// Orders two objects by this descriptor; stops the program for values the selector cannot compare (Apple raises).
    ///
    /// ```swift
    /// NSSortDescriptor(key: "age", ascending: true).compare(["age": 3], to: ["age": 5]) // .orderedAscending
    /// ```
    open func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
        do {
            return try compareThrowing(object1, to: object2)
        } catch {
            fatalError(PredicateError.message(of: error))
        }
    }

    /// Orders two objects, throwing where ``compare(_:to:)`` stops the program.
    ///
    /// ```swift
    /// let order = try descriptor.compareThrowing(a, to: b)
    /// ```
    open func compareThrowing(_ object1: Any, to object2: Any) throws -> ComparisonResult {
        let a = try sortValue(of: object1)
        let b = try sortValue(of: object2)
        let result: ComparisonResult
        if let comparatorBlock {
            result = comparatorBlock(a ?? NSNull(), b ?? NSNull())
        } else {
            result = try Self.compareValues(a as Any, b as Any, selector: selector ?? Selector("compare:"))
        }
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    private func sortValue(of object: Any) throws -> Any? {
        if let key { return try KeyValueCodingEngine.value(of: object, forKeyPath: key) }
        if let keyPath {
            guard let value = object[keyPath: keyPath] else {
                throw PredicateError.evaluation("cannot apply \(keyPath) to \(PredicateValue.typeName(object))")
            }
            return value
        }
        return object
    }

    /// The selectors' comparisons; `nil` first.
    static func compareValues(_ a: Any, _ b: Any, selector: Selector) throws -> ComparisonResult {
        let left = PredicateValue.normalize(a)
        let right = PredicateValue.normalize(b)
        guard let left else { return right == nil ? .orderedSame : .orderedAscending }
        guard let right else { return .orderedDescending }
        switch selector.name {
        case "compare:":
            if let x = PredicateValue.uuid(left), let y = PredicateValue.uuid(right) {
                return x.uuidString.compare(y.uuidString)
            }
            if let x = PredicateValue.data(left), let y = PredicateValue.data(right) {
                return x.lexicographicallyPrecedes(y) ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
            }
            if let order = try PredicateValue.order(left, right) { return order }
            return .orderedSame
        case "caseInsensitiveCompare:", "localizedCompare:", "localizedCaseInsensitiveCompare:", "localizedStandardCompare:":
            guard let x = PredicateValue.string(left), let y = PredicateValue.string(right) else {
                throw PredicateError.evaluation("\(selector.name) needs strings, not \(PredicateValue.typeName(left)) and \(PredicateValue.typeName(right))")
            }
            switch selector.name {
            case "caseInsensitiveCompare:": return PredicateStringComparison.compare(x, y, options: .caseInsensitive)
            case "localizedCompare:": return x.compare(y, options: [], range: nil, locale: Locale.current)
            case "localizedCaseInsensitiveCompare:": return x.compare(y, options: .caseInsensitive, range: nil, locale: Locale.current)
            default: return x.localizedStandardCompare(y)
            }
        default:
            throw PredicateError.evaluation("the sort selector \(selector.name) is not supported (use compare:, caseInsensitiveCompare:, localizedCompare:, localizedCaseInsensitiveCompare: or localizedStandardCompare:)")
        }
    }

    // MARK: Equality

    /// Equal when key, order and selector are equal (comparator descriptors only to themselves).
    ///
    /// ```swift
    /// NSSortDescriptor(key: "a", ascending: true) == NSSortDescriptor(key: "a", ascending: true) // true
    /// ```
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSSortDescriptor else { return false }
        if self === other { return true }
        return key == other.key && ascending == other.ascending && selector == other.selector
            && comparatorBlock == nil && other.comparatorBlock == nil && keyPath == other.keyPath
    }

    /// A hash consistent with ``isEqual(_:)``.
    ///
    /// ```swift
    /// let set: Set = [NSSortDescriptor(key: "a", ascending: true)]
    /// ```
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(key)
        hasher.combine(ascending)
        hasher.combine(selector)
        return hasher.finalize()
    }

    /// Sort descriptors are immutable, so a copy is the descriptor itself.
    ///
    /// ```swift
    /// let same = descriptor.copy() as! NSSortDescriptor
    /// ```
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// `(key, ascending, selector)` as Apple prints it.
    ///
    /// ```swift
    /// print(NSSortDescriptor(key: "a", ascending: true)) // (a, ascending, compare:)
    /// ```
    open override var description: String {
        "(\(key ?? "self"), \(ascending ? "ascending" : "descending"), \(selector?.name ?? "comparator"))"
    }

    // MARK: Sorting

    /// A stable sort by several descriptors (the first decides, later ones break ties), throwing on incomparable values.
    package static func sorted<Element>(_ elements: [Element], using descriptors: [NSSortDescriptor]) throws -> [Element] {
        guard !descriptors.isEmpty, elements.count > 1 else { return elements }
        var failure: (any Error)?
        let order = elements.indices.sorted { i, j in
            if failure != nil { return i < j }
            for descriptor in descriptors {
                do {
                    switch try descriptor.compareThrowing(elements[i], to: elements[j]) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: continue
                    }
                } catch {
                    failure = error
                    return i < j
                }
            }
            return i < j
        }
        if let failure { throw failure }
        return order.map { elements[$0] }
    }
}
