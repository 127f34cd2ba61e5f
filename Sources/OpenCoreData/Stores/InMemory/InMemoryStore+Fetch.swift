extension InMemoryStore: FetchingStore {
    /// Evaluates the fetch over the stored rows with the predicate layer, through key-value-coding views of the
    /// rows (relationships lead to other rows, so key paths through relationships work as in SQL).
    func fetch(_ request: StoreFetchRequest, requestContext: StoreRequestContext) throws -> StoreFetchResult {
        let views = RowViews(store: self, requestContext: requestContext)
        views.preload(rows.mapValues(\.snapshot))
        let predicate = request.predicate.map { predicate in
            PredicateRewriting.rewrite(predicate) { value in
                if let objectID = value as? NSManagedObjectID { return views.view(for: objectID) }
                return value
            }
        }
        var matches: [RowView] = []
        for row in rows.values {
            let entity = row.objectID.entity
            guard request.includesSubentities ? entity.isKindOf(entity: request.entity) : entity === request.entity else { continue }
            let view = views.view(for: row.objectID)
            if let predicate, try !predicate.evaluateThrowing(with: view) { continue }
            matches.append(view)
        }
        // Stable order without sort descriptors: by primary key, as a table scan returns rows.
        matches.sort { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        matches = try NSSortDescriptor.sorted(matches, using: request.sortDescriptors)
        if request.fetchOffset > 0 { matches = Array(matches.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { matches = Array(matches.prefix(request.fetchLimit)) }
        var result = StoreFetchResult(objectIDs: matches.map(\.objectID), count: matches.count)
        if request.wantsSnapshots { result.snapshots = matches.map { rows[$0.objectID]!.snapshot } }
        return result
    }
}

