import Foundation

// Filtering and sorting collections with OpenCoreData's predicates and sort descriptors. swift-corelibs-foundation
// declares methods of the same names taking its own (unusable) NSPredicate and NSSortDescriptor; these overloads take
// ours, so `array.filtered(using: NSPredicate(format: …))` picks them.

extension NSArray {
    /// The elements that satisfy the predicate, in order.
    ///
    /// ```swift
    /// NSArray(array: ["Java", "C"]).filtered(using: NSPredicate(format: "SELF BEGINSWITH 'J'")) // ["Java"]
    /// ```
    public func filtered(using predicate: NSPredicate) -> [Any] {
        self.map { $0 }.filter { predicate.evaluate(with: $0) }
    }

    /// The elements sorted by the descriptors (stable).
    ///
    /// ```swift
    /// NSArray(array: [3, 1, 2]).sortedArray(using: [NSSortDescriptor(key: nil, ascending: true)]) // [1, 2, 3]
    /// ```
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Any] {
        sortedOrStop(self.map { $0 }, sortDescriptors)
    }
}

extension NSMutableArray {
    /// Removes the elements that do not satisfy the predicate.
    ///
    /// ```swift
    /// let names = NSMutableArray(array: ["Ann", "Bob"])
    /// names.filter(using: NSPredicate(format: "SELF CONTAINS 'n'")) // names is ["Ann"]
    /// ```
    public func filter(using predicate: NSPredicate) {
        let kept = filtered(using: predicate)
        removeAllObjects()
        addObjects(from: kept)
    }

    /// Sorts the array in place by the descriptors (stable).
    ///
    /// ```swift
    /// numbers.sort(using: [NSSortDescriptor(key: nil, ascending: false)])
    /// ```
    public func sort(using sortDescriptors: [NSSortDescriptor]) {
        let sorted = sortedArray(using: sortDescriptors)
        removeAllObjects()
        addObjects(from: sorted)
    }
}

extension NSSet {
    /// The elements that satisfy the predicate.
    ///
    /// ```swift
    /// NSSet(array: [1, 2, 3]).filtered(using: NSPredicate(format: "SELF > 1")) // {2, 3}
    /// ```
    public func filtered(using predicate: NSPredicate) -> Set<AnyHashable> {
        Set(allObjects.filter { predicate.evaluate(with: $0) }.compactMap { $0 as? AnyHashable })
    }

    /// The elements as an array sorted by the descriptors.
    ///
    /// ```swift
    /// NSSet(array: [3, 1]).sortedArray(using: [NSSortDescriptor(key: nil, ascending: true)]) // [1, 3]
    /// ```
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Any] {
        sortedOrStop(allObjects, sortDescriptors)
    }
}

extension NSMutableSet {
    /// Removes the elements that do not satisfy the predicate.
    ///
    /// ```swift
    /// set.filter(using: NSPredicate(format: "SELF > 1"))
    /// ```
    public func filter(using predicate: NSPredicate) {
        for element in allObjects where !predicate.evaluate(with: element) { remove(element) }
    }
}

extension NSOrderedSet {
    /// The elements that satisfy the predicate, in order.
    ///
    /// ```swift
    /// NSOrderedSet(array: [1, 2, 3]).filtered(using: NSPredicate(format: "SELF != 2")) // [1, 3]
    /// ```
    public func filtered(using predicate: NSPredicate) -> NSOrderedSet {
        NSOrderedSet(array: array.filter { predicate.evaluate(with: $0) })
    }

    /// The elements as an array sorted by the descriptors.
    ///
    /// ```swift
    /// NSOrderedSet(array: [2, 1]).sortedArray(using: [NSSortDescriptor(key: nil, ascending: true)]) // [1, 2]
    /// ```
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Any] {
        sortedOrStop(array, sortDescriptors)
    }
}

extension NSMutableOrderedSet {
    /// Removes the elements that do not satisfy the predicate.
    ///
    /// ```swift
    /// ordered.filter(using: NSPredicate(format: "SELF != 2"))
    /// ```
    public func filter(using predicate: NSPredicate) {
        let kept = filtered(using: predicate)
        removeAllObjects()
        addObjects(from: kept.array)
    }
}

extension Array {
    /// The elements that satisfy the predicate, in order (Swift counterpart of `NSArray.filtered(using:)`).
    ///
    /// ```swift
    /// ["Java", "C"].filtered(using: NSPredicate(format: "SELF BEGINSWITH 'J'")) // ["Java"]
    /// ```
    public func filtered(using predicate: NSPredicate) -> [Element] {
        filter { predicate.evaluate(with: $0) }
    }

    /// Keeps only the elements that satisfy the predicate (Swift counterpart of `NSMutableArray.filter(using:)`).
    ///
    /// ```swift
    /// var names = ["Ann", "Bob"]
    /// names.filter(using: NSPredicate(format: "SELF CONTAINS 'n'")) // names == ["Ann"]
    /// ```
    public mutating func filter(using predicate: NSPredicate) {
        self = filtered(using: predicate)
    }

    /// The elements sorted by the descriptors (stable; counterpart of `NSArray.sortedArray(using:)`).
    ///
    /// ```swift
    /// people.sorted(using: [NSSortDescriptor(key: "age", ascending: true)])
    /// ```
    public func sorted(using sortDescriptors: [NSSortDescriptor]) -> [Element] {
        sortedOrStop(self, sortDescriptors)
    }

    /// Sorts in place by the descriptors (stable).
    ///
    /// ```swift
    /// people.sort(using: [NSSortDescriptor(key: "name", ascending: true)])
    /// ```
    public mutating func sort(using sortDescriptors: [NSSortDescriptor]) {
        self = sorted(using: sortDescriptors)
    }
}

private func sortedOrStop<Element>(_ elements: [Element], _ descriptors: [NSSortDescriptor]) -> [Element] {
    do {
        return try NSSortDescriptor.sorted(elements, using: descriptors)
    } catch {
        fatalError(PredicateError.message(of: error))
    }
}
