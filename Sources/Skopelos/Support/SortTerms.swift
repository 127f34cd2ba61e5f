import OpenCoreData

/// The seed's sort terms: comma-separated keys, each optionally suffixed `:YES`/`:NO` (or `:true`/`:false`,
/// `:1`/`:0`) to override the default direction.
enum SortTerms {
    static func sortDescriptors(_ terms: String, ascending: Bool) -> [NSSortDescriptor] {
        terms.split(separator: ",").map { term in
            let parts = term.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let direction = parts.count > 1 ? ["yes", "true", "1", "y"].contains(parts[1].lowercased()) : ascending
            return NSSortDescriptor(key: parts[0], ascending: direction)
        }
    }
}
