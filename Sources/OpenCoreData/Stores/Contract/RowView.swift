/// The key-value-coding views of a store's rows during one in-memory evaluation (a predicate or sort a store
/// evaluates itself): one view per object, so identity comparisons work, with related rows loaded on demand.
final class RowViews {
    private let store: SnapshotStore
    /// Who the evaluation is for (related rows are read as that asker sees them).
    private let requestContext: StoreRequestContext
    private var views: [NSManagedObjectID: RowView] = [:]
    private var snapshots: [NSManagedObjectID: ObjectSnapshot] = [:]

    init(store: SnapshotStore, requestContext: StoreRequestContext) {
        self.store = store
        self.requestContext = requestContext
    }

    /// Rows already at hand (from a query), so views do not read them again.
    func preload(_ rows: [NSManagedObjectID: ObjectSnapshot]) {
        snapshots.merge(rows) { current, _ in current }
    }

    /// The view of an object (a view with no row, which equals nothing else, for unknown IDs).
    func view(for objectID: NSManagedObjectID) -> RowView {
        if let view = views[objectID] { return view }
        let view = RowView(objectID: objectID, views: self)
        views[objectID] = view
        return view
    }

    /// The row of an object.
    func snapshot(for objectID: NSManagedObjectID) -> ObjectSnapshot? {
        if let snapshot = snapshots[objectID] { return snapshot }
        guard !objectID.isTemporaryID, let snapshot = try? store.snapshot(for: objectID, requestContext: requestContext) else { return nil }
        snapshots[objectID] = snapshot
        return snapshot
    }

    /// The members of a to-many relationship.
    func related(_ objectID: NSManagedObjectID, _ relationship: NSRelationshipDescription) -> [NSManagedObjectID] {
        (try? store.relatedObjectIDs(of: objectID, through: relationship, requestContext: requestContext)) ?? []
    }
}

/// A stored row seen through key-value coding: attributes as Apple's KVC types, to-one relationships as the
/// destination's view, to-many ones as sets (ordered sets) of views.
final class RowView: NSObject, KeyValueCoding {
    let objectID: NSManagedObjectID
    private unowned let views: RowViews

    init(objectID: NSManagedObjectID, views: RowViews) {
        self.objectID = objectID
        self.views = views
    }

    func value(forKey key: String) -> Any? {
        guard let snapshot = views.snapshot(for: objectID) else { return nil }
        switch objectID.entity.layout.slots[key] {
        case .attribute(let index, let attribute)?:
            return Self.attributeValue(snapshot.attributes[index], for: attribute)
        case .toOne(let index, _)?:
            return snapshot.toOne[index].map { views.view(for: $0) }
        case .toMany(_, let relationship)?:
            let members = views.related(objectID, relationship).map { views.view(for: $0) }
            return relationship.isOrdered ? NSOrderedSet(array: members) : NSSet(array: members)
        case nil where key == "entity":
            return objectID.entity   // the row's entity, as a managed object's key-value coding gives it
        case .fetched?, nil:
            return nil
        }
    }

    override var description: String { "<row \(objectID)>" }

    /// An attribute's value in a row as an object's key-value coding gives it (a transformable one transformed).
    ///
    /// ```swift
    /// RowView.attributeValue(snapshot.attributes[index], for: rating)   // 3 (an Int16 attribute)
    /// ```
    static func attributeValue(_ stored: StoredValue, for attribute: NSAttributeDescription) -> Any? {
        if attribute.attributeType == .transformableAttributeType {
            return TransformableValues.object(from: stored, attribute: attribute)
        }
        return ValueConversion.kvcValue(stored, for: attribute)
    }
}
