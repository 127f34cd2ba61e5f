import Foundation
import OpenCoreData

extension ResultsObserver where SectionTitle == Never {
    /// An observer of the models `fetchDescriptor` matches in `modelContext` (all of the type by default); fetches them
    /// at once, and throws when that fetch fails.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, Never>(modelContext: container.mainContext)
    /// ```
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContext: ModelContext,
                            isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, modelContext: modelContext, sectionBy: nil, sectionSort: nil, sectionTitle: nil)
    }

    /// An observer of the models `fetchDescriptor` matches, in a new context of `modelContainer`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, Never>(modelContainer: container)
    /// ```
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContainer: ModelContainer,
                            isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(fetchDescriptor: fetchDescriptor, modelContext: ModelContext(modelContainer))
    }

    /// An observer of the models `filterBy` matches (all when nil) in `sortBy`'s order, in `modelContext`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, Never>(filterBy: #Predicate { $0.isUpcoming }, sortBy: [SortDescriptor(\.start)],
    ///                                                 modelContext: context)
    /// ```
    @_disfavoredOverload
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContext: ModelContext,
                            isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), modelContext: modelContext)
    }

    /// An observer of the models `filterBy` matches in `sortBy`'s order, in a new context of `modelContainer`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, Never>(sortBy: [SortDescriptor(\.start)], modelContainer: container)
    /// ```
    @_disfavoredOverload
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContainer: ModelContainer,
                            isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), modelContext: ModelContext(modelContainer))
    }
}

extension ResultsObserver where SectionTitle == String {
    private convenience init(descriptor: FetchDescriptor<Element>, sectionBy: KeyPath<Element, String> & Sendable, modelContext: ModelContext) throws {
        try self.init(descriptor: descriptor, modelContext: modelContext, sectionBy: sectionBy, sectionSort: SortDescriptor(sectionBy),
                      sectionTitle: { $0[keyPath: sectionBy] })
    }

    private convenience init(descriptor: FetchDescriptor<Element>, sectionBy: KeyPath<Element, String?> & Sendable, modelContext: ModelContext) throws {
        try self.init(descriptor: descriptor, modelContext: modelContext, sectionBy: sectionBy, sectionSort: SortDescriptor(sectionBy),
                      sectionTitle: { $0[keyPath: sectionBy] ?? "" })
    }

    /// An observer of the models `fetchDescriptor` matches in `modelContext`, grouped into sections by `sectionBy`
    /// (which becomes the first sort).
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, String>(sectionBy: \.country, modelContext: context)
    /// ```
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String> & Sendable,
                            modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, sectionBy: sectionBy, modelContext: modelContext)
    }

    /// As with a `String` key path; models whose section value is nil are in the section titled `""`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, String>(sectionBy: \.region, modelContext: context)   // region: String?
    /// ```
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?> & Sendable,
                            modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, sectionBy: sectionBy, modelContext: modelContext)
    }

    /// Sections by `sectionBy` of the models `fetchDescriptor` matches, in a new context of `modelContainer`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, String>(sectionBy: \.country, modelContainer: container)
    /// ```
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String> & Sendable,
                            modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, sectionBy: sectionBy, modelContext: ModelContext(modelContainer))
    }

    /// Sections by an optional `sectionBy` (nil values in section `""`), in a new context of `modelContainer`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, String>(sectionBy: \.region, modelContainer: container)
    /// ```
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?> & Sendable,
                            modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, sectionBy: sectionBy, modelContext: ModelContext(modelContainer))
    }

    /// Sections by `sectionBy` of the models `filterBy` matches, sorted by the section, then `sortBy`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, String>(sortBy: [SortDescriptor(\.start)], sectionBy: \.country, modelContext: context)
    /// ```
    @_disfavoredOverload
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String> & Sendable,
                            modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy, modelContext: modelContext)
    }

    /// Sections by an optional `sectionBy` (nil values in section `""`) of the models `filterBy` matches.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, String>(filterBy: #Predicate { $0.isUpcoming }, sectionBy: \.region, modelContext: context)
    /// ```
    @_disfavoredOverload
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String?> & Sendable,
                            modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy, modelContext: modelContext)
    }

    /// Sections by `sectionBy` of the models `filterBy` matches, in a new context of `modelContainer`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, String>(sectionBy: \.country, modelContainer: container)
    /// ```
    @_disfavoredOverload
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String> & Sendable,
                            modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy,
                      modelContext: ModelContext(modelContainer))
    }

    /// Sections by an optional `sectionBy` of the models `filterBy` matches, in a new context of `modelContainer`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, String>(sectionBy: \.region, modelContainer: container)
    /// ```
    @_disfavoredOverload
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String?> & Sendable,
                            modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy,
                      modelContext: ModelContext(modelContainer))
    }
}
