extension NSFetchedPropertyDescription {
    /// The fetch request whose results are the property's value: its entity, its predicate (with `$FETCH_SOURCE`
    /// and `$FETCHED_PROPERTY`) and its sort descriptors, which order the value.
    ///
    /// For example:
    /// ```swift
    /// let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Mood")
    /// request.predicate = NSPredicate(format: "country == $FETCH_SOURCE")
    /// request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
    /// fetchedProperty.fetchRequest = request
    /// ```
    public var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        get {
            guard let entityName = fetchRequestEntityName else { return nil }
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
            request.predicate = fetchRequestPredicate
            request.sortDescriptors = fetchRequestSortDescriptors
            return request
        }
        set {
            fetchRequestEntityName = newValue?.entityName
            fetchRequestPredicateFormat = newValue?.predicate?.predicateFormat
            fetchRequestSortDescriptors = newValue?.sortDescriptors
        }
    }
}

extension NSManagedObjectModel {
    /// The model's fetch request templates by name.
    public var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] {
        Dictionary(_fetchRequestTemplates.map { ($0.name, $0.template.makeRequest()) }, uniquingKeysWith: { first, _ in first })
    }

    /// The template named `name`, if any (with its `$variables` unsubstituted).
    ///
    /// For example:
    /// ```swift
    /// let template = model.fetchRequestTemplate(forName: "BooksAfter")
    /// ```
    public func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        _fetchRequestTemplates.first { $0.name == name }?.template.makeRequest()
    }

    /// A fetch request from the template named `name`, with its predicate's variables substituted; nil if there
    /// is no such template.
    ///
    /// For example:
    /// ```swift
    /// let request = model.fetchRequestFromTemplate(withName: "BooksAfter", substitutionVariables: ["YEAR": 2000])
    /// ```
    public func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any]) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let request = fetchRequestTemplate(forName: name) else { return nil }
        request.predicate = request.predicate?.withSubstitutionVariables(variables)
        return request
    }

    /// Adds (or with nil removes) a fetch request template.
    public func setFetchRequestTemplate(_ fetchRequestTemplate: NSFetchRequest<NSFetchRequestResult>?, forName name: String) {
        checkModelEditable(self, "set the fetch request template '\(name)'")
        _fetchRequestTemplates.removeAll { $0.name == name }
        guard let request = fetchRequestTemplate, let entityName = request.entityName else { return }
        var settings: [String: String] = [:]
        if request.fetchLimit > 0 { settings["fetchLimit"] = "\(request.fetchLimit)" }
        if request.fetchBatchSize > 0 { settings["fetchBatchSize"] = "\(request.fetchBatchSize)" }
        if !request.includesSubentities { settings["includeSubentities"] = "NO" }
        if !request.returnsObjectsAsFaults { settings["returnObjectsAsFaults"] = "NO" }
        _fetchRequestTemplates.append((name, FetchRequestTemplate(entityName: entityName, predicateFormat: request.predicate?.predicateFormat, settings: settings)))
    }
}

extension FetchRequestTemplate {
    /// The request the template describes.
    func makeRequest() -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        request.predicate = predicateFormat.flatMap { try? NSPredicate(validatingFormat: $0, argumentArray: nil) }
        if let limit = settings["fetchLimit"].flatMap(Int.init) { request.fetchLimit = limit }
        if let size = settings["fetchBatchSize"].flatMap(Int.init) { request.fetchBatchSize = size }
        if settings["includeSubentities"] == "NO" { request.includesSubentities = false }
        if settings["returnObjectsAsFaults"] == "NO" { request.returnsObjectsAsFaults = false }
        if settings["includesPendingChanges"] == "NO" { request.includesPendingChanges = false }
        return request
    }
}
