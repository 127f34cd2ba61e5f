/// A property whose value is the result of a fetch request, evaluated lazily (a "weak, one-way relationship").
///
/// The request's predicate may use `$FETCH_SOURCE` (the object) and `$FETCHED_PROPERTY` (this description, so
/// `$FETCHED_PROPERTY.userInfo.search` reads a value from the property's user info); its sort descriptors order the
/// value, an array.
///
/// For example:
/// ```swift
/// let recent = NSFetchedPropertyDescription()
/// recent.name = "recentMoods"
/// let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Mood")
/// request.predicate = NSPredicate(format: "date > $FETCH_SOURCE.lastVisit")
/// request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
/// recent.fetchRequest = request
/// ```
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: as NSPropertyDescription — mutable only until the model is frozen.

    var _fetchRequestEntityName: String?
    var _fetchRequestPredicateFormat: String?
    var _fetchRequestSortDescriptors: [NSSortDescriptor]?

    public override init() { super.init() }

    override var kindName: String { "fetched property" }

    /// The name of the entity the fetch request fetches.
    var fetchRequestEntityName: String? {
        get { _fetchRequestEntityName }
        set { willMutate("fetchRequest"); _fetchRequestEntityName = newValue }
    }

    /// The fetch request's predicate in format-string syntax, as the model file stores it.
    var fetchRequestPredicateFormat: String? {
        get { _fetchRequestPredicateFormat }
        set { willMutate("fetchRequest"); _fetchRequestPredicateFormat = newValue }
    }

    /// The fetch request's sort descriptors (nil: the store's order). Xcode's model files cannot express them; they
    /// are set in code through ``fetchRequest``.
    var fetchRequestSortDescriptors: [NSSortDescriptor]? {
        get { _fetchRequestSortDescriptors }
        set { willMutate("fetchRequest"); _fetchRequestSortDescriptors = newValue }
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchedPropertyDescription()
        copyFields(into: copy)
        return copy
    }

    override func copyFields(into copy: NSPropertyDescription) {
        super.copyFields(into: copy)
        guard let copy = copy as? NSFetchedPropertyDescription else { return }
        copy._fetchRequestEntityName = _fetchRequestEntityName
        copy._fetchRequestPredicateFormat = _fetchRequestPredicateFormat
        copy._fetchRequestSortDescriptors = _fetchRequestSortDescriptors
    }
}
