/// One state of a controller's results: the objects in order, the section name each was placed under, and the
/// sections as runs of equal names. Immutable once built; a change set builds the next one.
final class FetchedResultsState {
    /// A section's identity across states: its name and, should a misconfigured sort split it, which run of that name.
    struct SectionKey: Hashable {
        let name: String
        let occurrence: Int
    }

    let objects: [NSManagedObject]
    /// The section name of each object (all "" without a section key path).
    let names: [String]
    let isSectioned: Bool
    /// Where each section starts in `objects`.
    let sectionStarts: [Int]
    let sectionKeys: [SectionKey]
    /// The section name of the first section that repeats an earlier one (the sort does not group sections), if any.
    let outOfOrderSection: (index: Int, name: String)?

    init(objects: [NSManagedObject], names: [String], isSectioned: Bool) {
        precondition(objects.count == names.count)
        self.objects = objects
        self.names = names
        self.isSectioned = isSectioned
        var starts: [Int] = []
        var keys: [SectionKey] = []
        var occurrences: [String: Int] = [:]
        var outOfOrder: (Int, String)?
        if isSectioned {
            for (index, name) in names.enumerated() where index == 0 || names[index - 1] != name {
                let occurrence = occurrences[name, default: 0]
                if occurrence > 0 && outOfOrder == nil { outOfOrder = (index, name) }
                occurrences[name] = occurrence + 1
                starts.append(index)
                keys.append(SectionKey(name: name, occurrence: occurrence))
            }
        } else {
            // Without a section key path there is always exactly one section, even when it is empty.
            starts = [0]
            keys = [SectionKey(name: "", occurrence: 0)]
        }
        sectionStarts = starts
        sectionKeys = keys
        outOfOrderSection = outOfOrder
    }

    var sectionCount: Int { sectionStarts.count }

    func sectionRange(_ section: Int) -> Range<Int> {
        let end = section + 1 < sectionStarts.count ? sectionStarts[section + 1] : objects.count
        return sectionStarts[section]..<end
    }

    private var _indexByObject: [ObjectIdentifier: Int]?

    /// The position of each object in `objects`.
    var indexByObject: [ObjectIdentifier: Int] {
        if let index = _indexByObject { return index }
        var index = [ObjectIdentifier: Int](minimumCapacity: objects.count)
        for (position, object) in objects.enumerated() { index[ObjectIdentifier(object)] = position }
        _indexByObject = index
        return index
    }

    func flatIndex(of object: NSManagedObject) -> Int? {
        indexByObject[ObjectIdentifier(object)]
    }

    /// The section that holds position `flatIndex`.
    func section(ofFlatIndex flatIndex: Int) -> Int {
        var low = 0, high = sectionStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sectionStarts[middle] <= flatIndex { low = middle } else { high = middle - 1 }
        }
        return low
    }

    func indexPath(ofFlatIndex flatIndex: Int) -> IndexPath {
        let section = section(ofFlatIndex: flatIndex)
        return IndexPath(indexes: [section, flatIndex - sectionStarts[section]])
    }

    /// The position in `objects` of an index path, if it names an object.
    func flatIndex(of indexPath: IndexPath) -> Int? {
        guard indexPath.count == 2, indexPath[0] >= 0, indexPath[0] < sectionCount, indexPath[1] >= 0 else { return nil }
        let range = sectionRange(indexPath[0])
        return indexPath[1] < range.count ? range.lowerBound + indexPath[1] : nil
    }

    func sectionName(_ section: Int) -> String { sectionKeys[section].name }

    /// The object IDs, section by section, as a snapshot.
    func snapshot(reloading reloaded: [NSManagedObject] = []) -> FetchedResultsSnapshot<String, NSManagedObjectID> {
        var snapshot = FetchedResultsSnapshot<String, NSManagedObjectID>()
        var seen = Set<String>()
        for section in 0..<sectionCount where seen.insert(sectionKeys[section].name).inserted {
            snapshot.appendSections([sectionKeys[section].name])
        }
        for section in 0..<sectionCount {
            snapshot.appendItems(objects[sectionRange(section)].map(\.objectID), toSection: sectionKeys[section].name)
        }
        if !reloaded.isEmpty { snapshot.reloadItems(reloaded.map(\.objectID)) }
        return snapshot
    }
}
