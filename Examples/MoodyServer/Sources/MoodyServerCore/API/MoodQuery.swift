import OpenCoreData

/// `GET /moods`' query, parsed into typed values and compiled into a predicate *template* whose variables are
/// substituted with those values. Request text never becomes predicate format text: a hostile value is either
/// refused here (it is not an Int, a date or a sort key) or compared as a value.
struct MoodQuery: Sendable, Equatable {
    enum Sort: String, Sendable, CaseIterable {
        case date, newestFirst = "-date", rating, highestFirst = "-rating"

        var descriptors: [NSSortDescriptor] {
            switch self {
            case .date: [NSSortDescriptor(key: "date", ascending: true)]
            case .newestFirst: [NSSortDescriptor(key: "date", ascending: false)]
            case .rating: [NSSortDescriptor(key: "rating", ascending: true), NSSortDescriptor(key: "date", ascending: true)]
            case .highestFirst: [NSSortDescriptor(key: "rating", ascending: false), NSSortDescriptor(key: "date", ascending: false)]
            }
        }
    }

    var minRating: Int?
    var maxRating: Int?
    var country: Int?
    var since: Date?
    var until: Date?
    var limit = 50
    var offset = 0
    var sort = Sort.newestFirst

    static let parameters: Set<String> = ["minRating", "maxRating", "country", "since", "until", "limit", "offset", "sort"]
    static let maxLimit = 500
    static let maxOffset = 1_000_000

    /// Parses `key=value` pairs (values percent-decoded). Unknown or repeated keys, and values of the wrong type or
    /// out of range, are refused.
    static func parse(_ pairs: [(key: String, value: String)]) throws(APIError) -> MoodQuery {
        var query = MoodQuery()
        var seen = Set<String>()
        for (key, value) in pairs {
            guard parameters.contains(key) else {
                throw .badRequest("unknown query parameter '\(NewMood.clip(key))' (allowed: \(parameters.sorted().joined(separator: ", ")))")
            }
            guard seen.insert(key).inserted else { throw .badRequest("query parameter '\(key)' is given more than once") }
            switch key {
            case "minRating": query.minRating = try integer(value, key: key, in: 0...5)
            case "maxRating": query.maxRating = try integer(value, key: key, in: 0...5)
            case "country": query.country = try integer(value, key: key, in: 1...999)
            case "since": query.since = try date(value, key: key)
            case "until": query.until = try date(value, key: key)
            case "limit": query.limit = try integer(value, key: key, in: 1...maxLimit)
            case "offset": query.offset = try integer(value, key: key, in: 0...maxOffset)
            default:
                guard let sort = Sort(rawValue: value) else {
                    throw .badRequest("'sort' must be one of \(Sort.allCases.map(\.rawValue).joined(separator: ", ")), not '\(NewMood.clip(value))'")
                }
                query.sort = sort
            }
        }
        return query
    }

    /// Decimal digits only (an optional leading minus), within `range`.
    static func integer(_ text: String, key: String, in range: ClosedRange<Int>) throws(APIError) -> Int {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text), range.contains(value) else {
            throw .badRequest("'\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(NewMood.clip(text))'")
        }
        return value
    }

    static func date(_ text: String, key: String) throws(APIError) -> Date {
        guard let date = JSON.parseDate(text) else {
            throw .badRequest("'\(key)' must be an ISO 8601 date-time with a time zone (2026-05-01T12:00:00Z), not '\(NewMood.clip(text))'")
        }
        return date
    }

    // The templates: constant format strings; only their $variables receive request values.
    static let minRatingTemplate = NSPredicate(format: "rating >= $MIN_RATING")
    static let maxRatingTemplate = NSPredicate(format: "rating <= $MAX_RATING")
    static let countryTemplate = NSPredicate(format: "country.numericISO3166Code == $COUNTRY")
    static let sinceTemplate = NSPredicate(format: "date >= $SINCE")
    static let untilTemplate = NSPredicate(format: "date <= $UNTIL")

    /// The filters as one predicate (nil: every mood).
    var predicate: NSPredicate? {
        var parts: [NSPredicate] = []
        if let minRating { parts.append(Self.minRatingTemplate.withSubstitutionVariables(["MIN_RATING": NSNumber(value: minRating)])) }
        if let maxRating { parts.append(Self.maxRatingTemplate.withSubstitutionVariables(["MAX_RATING": NSNumber(value: maxRating)])) }
        if let country { parts.append(Self.countryTemplate.withSubstitutionVariables(["COUNTRY": NSNumber(value: country)])) }
        if let since { parts.append(Self.sinceTemplate.withSubstitutionVariables(["SINCE": since])) }
        if let until { parts.append(Self.untilTemplate.withSubstitutionVariables(["UNTIL": until])) }
        switch parts.count {
        case 0: return nil
        case 1: return parts[0]
        default: return NSCompoundPredicate(andPredicateWithSubpredicates: parts)
        }
    }
}
