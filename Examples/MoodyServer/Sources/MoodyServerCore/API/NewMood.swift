import OpenCoreData

/// `POST /moods`' body, checked field by field: unknown fields, wrong types and values out of range are refused.
///
/// ```json
/// {"rating": 4, "colors": ["#3a7fc2"], "latitude": 48.86, "longitude": 2.35, "country": 250}
/// ```
/// `rating` (0–5, the model's range) is required; `colors` (up to 64 `#rrggbb` strings), `latitude` (−90…90),
/// `longitude` (−180…180), `country` (numeric ISO 3166, 1–999), `continent` (10001–10007; needed only for a
/// country the server's table does not place) and `date` (ISO 8601; default now) are optional.
struct NewMood: Sendable, Equatable {
    var date: Date?
    var rating: Int16
    var colors: [MoodColor]
    var latitude: Double?
    var longitude: Double?
    var country: Int16?
    var continent: Int16?

    static let fields: Set<String> = ["date", "rating", "colors", "latitude", "longitude", "country", "continent"]
    static let maxColors = 64

    /// Decodes and checks a request body.
    static func parse(_ data: Data) throws(APIError) -> NewMood {
        guard !data.isEmpty else { throw .badRequest("the request body is empty: send a JSON object") }
        guard JSONSyntax.isValid(Array(data)) else { throw .badRequest("the request body is not valid JSON") }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .badRequest("the request body is not valid JSON")
        }
        guard case .object(let fields) = value else { throw .badRequest("the request body must be a JSON object, not \(value.typeName)") }
        if let unknown = fields.keys.filter({ !Self.fields.contains($0) }).sorted().first {
            throw .badRequest("unknown field '\(Self.clip(unknown))' (allowed: \(Self.fields.sorted().joined(separator: ", ")))")
        }
        guard let ratingValue = fields["rating"] else { throw .badRequest("'rating' is required") }
        var mood = NewMood(rating: Int16(try integer(ratingValue, field: "rating", in: 0...5)), colors: [])
        switch fields["date"] ?? .null {
        case .null: break
        case .string(let text):
            guard let date = JSON.parseDate(text) else { throw .badRequest("'date' is not an ISO 8601 date-time with a time zone: '\(Self.clip(text))'") }
            mood.date = date
        case let other: throw .badRequest("'date' must be an ISO 8601 string, not \(other.typeName)")
        }
        switch fields["colors"] ?? .null {
        case .null: break
        case .array(let list):
            guard list.count <= maxColors else { throw .badRequest("'colors' has more than \(maxColors) colors") }
            for item in list {
                guard case .string(let text) = item, let color = MoodColor(hex: text) else {
                    throw .badRequest("'colors' must be an array of \"#rrggbb\" strings")
                }
                mood.colors.append(color)
            }
        case let other: throw .badRequest("'colors' must be an array of \"#rrggbb\" strings, not \(other.typeName)")
        }
        mood.latitude = try double(fields["latitude"] ?? .null, field: "latitude", in: -90...90)
        mood.longitude = try double(fields["longitude"] ?? .null, field: "longitude", in: -180...180)
        if let value = fields["country"], value != .null {
            mood.country = Int16(try integer(value, field: "country", in: 1...999))
        }
        if let value = fields["continent"], value != .null {
            mood.continent = Int16(try integer(value, field: "continent", in: 10001...10007))
            guard mood.country != nil else { throw .badRequest("'continent' needs a 'country'") }
        }
        if let country = mood.country, mood.continent == nil {
            guard let continent = Geography.continentOfCountry[country] else {
                throw .badRequest("the server does not know the continent of country \(country): give 'continent' (10001–10007)")
            }
            mood.continent = continent
        }
        return mood
    }

    /// A JSON number that is a whole number in `range`.
    static func integer(_ value: JSONValue, field: String, in range: ClosedRange<Int>) throws(APIError) -> Int {
        guard case .number(let number) = value, number.rounded() == number,
              number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            throw .badRequest("'\(field)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// A JSON number in `range`, or null.
    static func double(_ value: JSONValue, field: String, in range: ClosedRange<Double>) throws(APIError) -> Double? {
        if value == .null { return nil }
        guard case .number(let number) = value, number.isFinite, range.contains(number) else {
            throw .badRequest("'\(field)' must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Echoes at most 64 characters of client text in a message.
    static func clip(_ text: String) -> String {
        text.count <= 64 ? text : String(text.prefix(64)) + "…"
    }
}
