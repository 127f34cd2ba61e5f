/// Sort descriptors as `ORDER BY` terms: attributes and to-one key paths, with the collation of each string
/// selector.
extension SQLiteFetchCompiler {
    /// The `ORDER BY` terms of sort descriptors.
    mutating func orderBy(_ descriptors: [NSSortDescriptor]) throws -> [String] {
        try descriptors.map { descriptor in
            guard let key = descriptor.key else { throw Untranslatable(reason: "sort descriptor without a key") }
            guard case .value(let column, _, let type) = try resolve(key.split(separator: ".").map(String.init), in: 0) else {
                throw Untranslatable(reason: "sort key \(key)")
            }
            let selector = descriptor.selector.map { NSStringFromSelector($0) } ?? "compare:"
            var collation = ""
            if type == .stringAttributeType || type == .URIAttributeType {
                switch selector {
                case "compare:": collation = ""
                case "caseInsensitiveCompare:": collation = " COLLATE OCD_CASE_INSENSITIVE"
                case "localizedCompare:": collation = " COLLATE OCD_LOCALIZED"
                case "localizedCaseInsensitiveCompare:": collation = " COLLATE OCD_LOCALIZED_CASE_INSENSITIVE"
                case "localizedStandardCompare:": collation = " COLLATE OCD_LOCALIZED_STANDARD"
                default: throw Untranslatable(reason: "sort selector \(selector)")
                }
            } else if selector != "compare:" {
                throw Untranslatable(reason: "sort selector \(selector) on a non-string")
            }
            return "\(column)\(collation) \(descriptor.ascending ? "ASC" : "DESC")"
        }
    }
}
