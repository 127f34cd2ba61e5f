import Foundation
import Observation
@_spi(OpenSwiftData) import OpenCoreData

/// Watches a container's stores for new history transactions (SwiftData's `HistoryObserver`): its one observable
/// property, ``eventCounter``, goes up each time saves matching its models and authors are committed — by any context
/// of the container, another container or another process on the same store — and the app then reads them with
/// ``ModelContext/fetchHistory(_:)`` after the token it keeps.
///
/// On Linux, saves of other processes are noticed by Core Data's remote-change polling (every 0.1 s by default); the
/// counter changes on a background thread, once per batch of new transactions that has a matching one.
///
/// ```swift
/// let observer = try HistoryObserver(observedModels: [Trip.self], authors: ["App"], modelContainer: container)
/// withObservationTracking { _ = observer.eventCounter } onChange: { Task { await sync.upload() } }
/// ```
public final class HistoryObserver: Observable, Sendable {
    /// The container whose stores are watched.
    public let modelContainer: ModelContainer
    /// The model types whose changes count (any model's when empty).
    public let observedModels: [any PersistentModel.Type]
    /// The transaction authors whose saves count (anyone's when empty).
    public let authors: Set<String>

    private let counter = Locked<Int>(0)
    private let registrar = ObservationRegistrar()
    private let follower = Locked<HistoryFollower?>(nil)

    /// How many times matching transactions arrived since the observer was made (observable).
    ///
    /// ```swift
    /// if observer.eventCounter > handled { try processNewHistory() }
    /// ```
    public var eventCounter: Int {
        registrar.access(self, keyPath: \.eventCounter)
        return counter.withLock { $0 }
    }

    /// An observer of `modelContainer`'s history after `historyTokens` (one per store identifier; when nil, only
    /// transactions committed from now on count).
    ///
    /// ```swift
    /// let observer = try HistoryObserver(historyTokens: [token.storeIdentifier: token], modelContainer: container)
    /// ```
    ///
    /// Throws when the history cannot be read to find the starting point.
    public convenience init(historyTokens: [String: any HistoryToken]? = nil, observedModels: [any PersistentModel.Type] = [],
                            authors: Set<String> = [], modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        let start: HistoryFollower.StartingPoint
        if let historyTokens {
            let storeIdentifier = modelContainer.coordinator.persistentStores.first?.identifier ?? ""
            start = .after(transactionNumber: (historyTokens[storeIdentifier] as? DefaultHistoryToken)?.transactionNumber ?? 0)
        } else {
            start = .now
        }
        try self.init(modelContainer: modelContainer, observedModels: observedModels, authors: authors, start: start)
    }

    private init(modelContainer: ModelContainer, observedModels: [any PersistentModel.Type], authors: Set<String>,
                 start: HistoryFollower.StartingPoint) throws {
        self.modelContainer = modelContainer
        self.observedModels = observedModels
        self.authors = authors
        let entityNames = Set(observedModels.map { Schema.entityName(of: $0) })
        let follower = try HistoryFollower(coordinator: modelContainer.coordinator, after: start) { [weak self] transactions in
            guard let self else { return }
            let matching = transactions.contains { transaction in
                (authors.isEmpty || transaction.author.map(authors.contains) == true)
                    && (entityNames.isEmpty || (transaction.changes ?? []).contains { entityNames.contains($0.changedObjectID.entity.name ?? "") })
            }
            guard matching else { return }
            registrar.withMutation(of: self, keyPath: \.eventCounter) {
                counter.withLock { $0 += 1 }
            }
        }
        self.follower.withLock { $0 = follower }
    }
}
