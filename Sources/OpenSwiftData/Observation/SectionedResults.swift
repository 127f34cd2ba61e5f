/// Results grouped into sections (SwiftData's `SectionedResults`, a ``ResultsObserver``'s ``ResultsObserver/sections``):
/// the sections in the order their first models appear in the results, each found by its title in O(1).
///
/// ```swift
/// let sections = observer.sections!
/// sections.sectionTitles                      // ["Europe", "Asia"]
/// sections[sectionTitle: "Asia"]?.count       // 2
/// ```
public struct SectionedResults<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Equatable {
    private let sections: [ResultsSection<Element, SectionTitle>]
    private let indexByTitle: [SectionTitle: Int]

    /// No sections.
    public init() {
        sections = []
        indexByTitle = [:]
    }

    /// `models` (sorted by their titles first) grouped by `title`, sections in the order of first appearance.
    init(_ models: [Element], title: (Element) -> SectionTitle) {
        var titles: [SectionTitle] = [], members: [SectionTitle: [Element]] = [:]
        for model in models {
            let key = title(model)
            if members[key] == nil { titles.append(key) }
            members[key, default: []].append(model)
        }
        sections = titles.map { ResultsSection(title: $0, elements: members[$0] ?? []) }
        indexByTitle = Dictionary(uniqueKeysWithValues: titles.enumerated().map { ($1, $0) })
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { sections.count }
    public subscript(position: Int) -> ResultsSection<Element, SectionTitle> { sections[position] }

    /// The titles of the sections, in order.
    public var sectionTitles: [SectionTitle] { sections.map(\.title) }

    /// Whether a section has `sectionTitle`.
    public func contains(sectionTitle: SectionTitle) -> Bool { indexByTitle[sectionTitle] != nil }

    /// The position of the section titled `title` (nil when none is).
    public func index(ofSectionTitled title: SectionTitle) -> Int? { indexByTitle[title] }

    /// The section titled `title` (nil when none is), in O(1).
    public subscript(sectionTitle title: SectionTitle) -> ResultsSection<Element, SectionTitle>? {
        indexByTitle[title].map { sections[$0] }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.sections == rhs.sections }
}

/// The models of one section (SwiftData's `ResultsSection`): those whose section key path has the section's title,
/// in the results' order.
///
/// ```swift
/// for section in observer.sections! { print(section.title, section.map(\.name)) }
/// ```
public struct ResultsSection<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Equatable, Identifiable {
    /// The value of the section key path its models share.
    public let title: SectionTitle
    private let elements: [Element]

    init(title: SectionTitle, elements: [Element]) {
        self.title = title
        self.elements = elements
    }

    /// The section's identity: its title.
    public var id: SectionTitle { title }

    public var startIndex: Int { 0 }
    public var endIndex: Int { elements.count }
    public subscript(position: Int) -> Element { elements[position] }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.title == rhs.title && lhs.elements.map(\.persistentModelID) == rhs.elements.map(\.persistentModelID)
    }
}
