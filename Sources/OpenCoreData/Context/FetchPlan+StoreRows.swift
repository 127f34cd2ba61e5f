import Foundation

/// Dictionary fetches of one dictionary per row, built from the rows the store returns, so that no managed object is
/// realized or registered: each requested attribute comes from the row's stored value and each to-one relationship
/// from its row's foreign key, as the objects' key-value coding would give them. Used when every column is an
/// attribute (not transient), a to-one relationship of the fetched entity, or `"objectID"`, and the context has no
/// unsaved change of the entity, no parent and one store; the rest is computed over objects (DEVIATIONS S12).
///
/// ```swift
/// let request = NSFetchRequest<NSDictionary>(entityName: "Mood")
/// request.resultType = .dictionaryResultType
/// request.propertiesToFetch = ["rating", "country"]   // the country as its object ID
/// try context.fetch(request)                           // rows read, no Mood object made
/// ```
extension FetchPlan {
    /// The dictionaries, or nil when objects are needed.
    func storeRowDictionaries(columns: [DictionaryColumn]) throws -> [NSDictionary]? {
        let stores = self.stores()
        guard stores.count == 1, columns.allSatisfy(isReadableFromRows), storesAnswerAlone() else { return nil }
        let request = StoreFetchRequest(
            entity: entity, includesSubentities: includesSubentities, predicate: storePredicate, sortDescriptors: sortDescriptors,
            fetchLimit: fetchLimit, fetchOffset: fetchOffset, wantsSnapshots: true, countOnly: false,
            reusableRows: context.readRowCache(coordinator))
        let result = try coordinator.fetch(request, from: stores[0], for: context.storeReadContext)
        guard let snapshots = result.snapshots else { return nil }
        return zip(result.objectIDs, snapshots).map { objectID, snapshot in
            let dictionary = NSMutableDictionary()
            let slots = objectID.entity.layout.slots
            for column in columns {
                var value: Any?
                if column.keyPath == nil {
                    value = objectID   // "objectID", or the evaluated object
                } else {
                    switch slots[column.keyPath!] {
                    case .attribute(let index, let attribute)?:
                        value = RowView.attributeValue(snapshot.attributes[index], for: attribute)
                    case .toOne(let index, _)?:
                        value = snapshot.toOne[index]
                    default:
                        value = nil
                    }
                }
                if let value, !ValueConversion.isNull(value) {
                    dictionary[column.key] = FoundationBridging.containerElement(Self.converted(value, to: column.resultType))
                }
            }
            return dictionary
        }
    }

    /// Whether a column's value is in the fetched entity's rows (for every sub-entity, which inherits the property).
    private func isReadableFromRows(_ column: DictionaryColumn) -> Bool {
        guard let keyPath = column.keyPath else {
            if let expression = column.expression, case .evaluatedObject = expression.node { return true }
            return false
        }
        switch entity.propertiesByName[keyPath] {
        case let attribute as NSAttributeDescription: return !attribute.isTransient
        case let relationship as NSRelationshipDescription: return !relationship.isToMany && !relationship.isTransient
        default: return false
        }
    }
}
