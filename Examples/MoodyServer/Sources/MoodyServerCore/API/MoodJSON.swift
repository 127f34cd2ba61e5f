import OpenCoreData

/// A mood as the API sends it.
struct MoodJSON: Codable, Sendable, Equatable {
    /// The mood's object ID as a URI (`x-coredata://<store UUID>/Mood/p<n>`).
    let id: String
    let date: String
    let rating: Int
    let colors: [String]
    let latitude: Double?
    let longitude: Double?
    /// The country's numeric ISO 3166 code, if the mood has a country.
    let country: Int?
    /// The continent's code (10001–10007), if the mood's country has one.
    let continent: Int?

    /// Reads `mood` (on its context's queue); its object ID must be permanent.
    init(_ mood: Mood) {
        id = mood.objectID.uriRepresentation().absoluteString
        date = JSON.format(mood.date)
        rating = Int(mood.rating)
        colors = (mood.colors ?? []).map(\.hex)
        latitude = mood.latitude
        longitude = mood.longitude
        country = mood.country.map { Int($0.numericISO3166Code) }
        continent = mood.country?.continent.map { Int($0.numericISO3166Code) }
    }
}

/// `GET /moods`' answer: a page of moods and how many match in all.
struct MoodPage: Codable, Sendable {
    let moods: [MoodJSON]
    let total: Int
    let limit: Int
    let offset: Int
}

/// A country with its mood count.
struct CountryJSON: Codable, Sendable {
    let code: Int
    let continent: Int?
    let moods: Int
    let updatedAt: String
}

/// A continent with its country and mood counts.
struct ContinentJSON: Codable, Sendable {
    let code: Int
    let name: String?
    let countries: Int
    let moods: Int
}
