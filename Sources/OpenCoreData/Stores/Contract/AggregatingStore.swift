/// A grouped fetch of aggregates, as the coordinator hands it to a store: what a dictionary fetch with
/// `propertiesToGroupBy` or aggregate expressions (`sum:`, `average:`, `min:`, `max:`, `count:`) asks, when every
/// part of it is a property of the fetched entity. The store answers with one group per distinct combination of the
/// grouped attributes (one group in all when none is grouped); with sort descriptors, ordered by them and then by each
/// group's first row, so that the answer is the one the context computes over objects (without, in any order).
///
/// ```swift
/// // SELECT t0.ZCOUNTRY, COUNT(t0.ZRATING), AVG(t0.ZRATING) FROM ZMOOD t0 WHERE … GROUP BY t0.ZCOUNTRY
/// let request = StoreAggregateRequest(entity: mood, includesSubentities: true, predicate: nil,
///                                     groupBy: [countryCode], aggregates: [.init(function: .average, attribute: rating)],
///                                     sortDescriptors: [])
/// ```
struct StoreAggregateRequest {
    /// An aggregate function, named as Apple's expression functions are.
    enum Function: String, CaseIterable {
        case count = "count:", sum = "sum:", average = "average:", min = "min:", max = "max:"
    }

    /// One aggregate column: a function over an attribute's non-nil values in a group.
    struct Aggregate {
        var function: Function
        var attribute: NSAttributeDescription
    }

    /// The entity whose rows are grouped.
    var entity: NSEntityDescription
    /// Whether rows of sub-entities count too.
    var includesSubentities: Bool
    /// Which rows count (nil: all); managed objects already replaced by their IDs.
    var predicate: NSPredicate?
    /// The grouped properties — attributes and to-one relationships — (empty: every matching row is one group,
    /// present even when no row matches).
    var groupBy: [NSPropertyDescription]
    /// The aggregate columns, in order.
    var aggregates: [Aggregate]
    /// The order of the groups: descriptors on grouped attributes only.
    var sortDescriptors: [NSSortDescriptor]
}

/// A grouped property's value in one group.
enum StoreGroupValue {
    /// An attribute's value in stored form (`.null` for nil).
    case attribute(StoredValue)
    /// A to-one relationship's destination (nil for none).
    case destination(NSManagedObjectID?)
}

/// One group of a ``StoreAggregateRequest``'s answer.
struct StoreAggregateGroup {
    /// The grouped properties' values, in the request's order.
    var groupValues: [StoreGroupValue]
    /// The aggregates, in the request's order: `count:` an integer, `sum:` an integer or a real, `average:` a real,
    /// `min:`/`max:` the attribute's stored form; `.null` when the group has no non-nil value (a `sum:` of none is 0).
    var aggregateValues: [StoredValue]
}

/// Stores that compute grouped aggregates in their own query language, without the context realizing any object.
protocol AggregatingStore: FetchingStore {
    /// The groups of `request`, or nil when part of it cannot be said in the store's query language (the context
    /// then computes the dictionaries over objects).
    func aggregate(_ request: StoreAggregateRequest, requestContext: StoreRequestContext) throws -> [StoreAggregateGroup]?
}
