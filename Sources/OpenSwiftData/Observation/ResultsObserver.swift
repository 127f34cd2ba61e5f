import Foundation
import Observation
import OpenCoreData

/// Fetches the models a descriptor matches and keeps them up to date (SwiftData's `ResultsObserver`, `@Query` outside
/// SwiftUI): ``results`` is observable, and changes when the models matching, or their order, change — through the
/// observer's context, another context of the container, or another container or process on the same store.
///
/// `SectionTitle` is `Never` for plain results, `String` to group them into ``sections`` by a string key path.
///
/// When it changes (Linux has no run loop; DEVIATIONS.md SD12): after the context's own changes at the end of their
/// event — `processPendingChanges()`, a save, or by itself on the main actor (for the main context and contexts made
/// there) or between a model actor's jobs; after other writers' saves as soon as they are merged — at once on the
/// main actor and in model actors, when the context is next used elsewhere.
///
/// ```swift
/// let observer = try ResultsObserver<Trip, Never>(filterBy: #Predicate { $0.isUpcoming }, sortBy: [SortDescriptor(\.start)],
///                                                 modelContext: container.mainContext)
/// withObservationTracking { _ = observer.results } onChange: { print("trips changed") }
/// ```
public final class ResultsObserver<Element: PersistentModel, SectionTitle: Hashable>: Observable, CustomDebugStringConvertible {
    /// The context the models are fetched from and whose changes are followed.
    public let modelContext: ModelContext
    /// The key path the results are grouped by (nil without sections).
    public let sectionBy: PartialKeyPath<Element>?

    private var descriptor: FetchDescriptor<Element>
    /// The sort on the section key path, kept first (nil without sections).
    private let sectionSort: SortDescriptor<Element>?
    private let sectionTitle: ((Element) -> SectionTitle)?
    private var models: [Element] = []
    private var identifiers: [PersistentIdentifier] = []
    private var grouped: SectionedResults<Element, SectionTitle>?
    private let registrar = ObservationRegistrar()

    init(descriptor: FetchDescriptor<Element>, modelContext: ModelContext, sectionBy: PartialKeyPath<Element>?,
         sectionSort: SortDescriptor<Element>?, sectionTitle: ((Element) -> SectionTitle)?) throws {
        self.modelContext = modelContext
        self.sectionBy = sectionBy
        self.sectionSort = sectionSort
        self.sectionTitle = sectionTitle
        self.descriptor = descriptor
        self.descriptor.sortBy = Self.sorts(descriptor.sortBy, sectionSort: sectionSort)
        try fetch()
        modelContext.addChangeObserver(self)
    }

    // MARK: What is fetched

    /// The whole fetch: predicate, sorts (the section's first), limit and offset.
    public var fetchDescriptor: FetchDescriptor<Element> {
        registrar.access(self, keyPath: \.fetchDescriptor)
        return descriptor
    }

    /// Which models are in the results (all of the type when nil). Setting it fetches again at once: the results are
    /// up to date when the setter returns (a predicate the store cannot run leaves them as they were).
    ///
    /// ```swift
    /// observer.filterBy = #Predicate { $0.name.contains("Lis") }
    /// ```
    public var filterBy: Predicate<Element>? {
        get { fetchDescriptor.predicate }
        set { change { $0.predicate = newValue } }
    }

    /// The order of the results. Setting it fetches again at once; with sections, the section key path stays the
    /// first sort.
    ///
    /// ```swift
    /// observer.sortBy = [SortDescriptor(\.start, order: .reverse)]
    /// ```
    public var sortBy: [SortDescriptor<Element>] {
        get { fetchDescriptor.sortBy }
        set { change { $0.sortBy = Self.sorts(newValue, sectionSort: sectionSort) } }
    }

    private func change(_ edit: (inout FetchDescriptor<Element>) -> Void) {
        registrar.withMutation(of: self, keyPath: \.fetchDescriptor) { edit(&descriptor) }
        try? fetch()
    }

    /// `sorts` with the section sort first (unless a sort on the same key path already is).
    private static func sorts(_ sorts: [SortDescriptor<Element>], sectionSort: SortDescriptor<Element>?) -> [SortDescriptor<Element>] {
        guard let sectionSort else { return sorts }
        if let first = sorts.first, first.keyPath == sectionSort.keyPath { return sorts }
        return [sectionSort] + sorts
    }

    // MARK: Results

    /// The models matching, in order (observable: it changes when they, or their order, change).
    ///
    /// ```swift
    /// for trip in observer.results { print(trip.name) }
    /// ```
    public var results: FetchResultsCollection<Element> {
        registrar.access(self, keyPath: \.results)
        let models = models
        return FetchResultsCollection(count: models.count) { models[$0] }
    }

    /// The results grouped by ``sectionBy``, sections in the order they first appear (nil without sections;
    /// observable).
    ///
    /// ```swift
    /// for section in observer.sections ?? SectionedResults() { print(section.title, section.count) }
    /// ```
    public var sections: SectionedResults<Element, SectionTitle>? {
        registrar.access(self, keyPath: \.sections)
        return grouped
    }

    /// The model at `indexPath` (`[section, item]`) of the sections; nil without sections or outside them.
    ///
    /// ```swift
    /// let first = observer.element(at: IndexPath(indexes: [0, 0]))
    /// ```
    public func element(at indexPath: IndexPath) -> Element? {
        guard indexPath.count == 2, let sections, sections.indices.contains(indexPath[0]) else { return nil }
        let section = sections[indexPath[0]]
        return section.indices.contains(indexPath[1]) ? section[indexPath[1]] : nil
    }

    /// Where `element` is in the sections (`[section, item]`); nil without sections or when it is not in them.
    ///
    /// ```swift
    /// observer.indexPath(for: trip)   // [1, 3]
    /// ```
    public func indexPath(for element: Element) -> IndexPath? {
        guard let sections else { return nil }
        let id = element.persistentModelID
        for (number, section) in sections.enumerated() {
            if let item = section.firstIndex(where: { $0.persistentModelID == id }) { return IndexPath(indexes: [number, item]) }
        }
        return nil
    }

    public var debugDescription: String {
        "ResultsObserver<\(Element.self), \(SectionTitle.self)>(\(models.count) results\(grouped.map { ", \($0.count) sections" } ?? ""))"
    }

    /// Fetches the results again; observers are told only when the models or their order changed.
    private func fetch() throws {
        let models = try modelContext.fetch(descriptor)
        let identifiers = models.map(\.persistentModelID)
        let grouped = sectionTitle.map { SectionedResults(models, title: $0) }
        guard identifiers != self.identifiers || grouped != self.grouped else { return }
        registrar.withMutation(of: self, keyPath: \.results) {
            registrar.withMutation(of: self, keyPath: \.sections) {
                self.models = models
                self.identifiers = identifiers
                self.grouped = grouped
            }
        }
    }
}

extension ResultsObserver: ContextChangeObserver {
    func contextDidChange() {
        try? fetch()
    }
}
