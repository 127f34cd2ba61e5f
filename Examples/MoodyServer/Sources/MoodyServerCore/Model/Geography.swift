/// Continents by the book's codes, and the continent of the countries the server knows without being told.
///
/// The book finds a mood's country and continent from a placemark; the server is told the country's numeric ISO
/// 3166 code, and takes the continent from this table unless the request names one.
enum Geography {
    static let continents: [Int16: String] = [
        10001: "Africa", 10002: "Antarctica", 10003: "Asia", 10004: "Australia", 10005: "Europe",
        10006: "North America", 10007: "South America",
    ]

    /// Country code → continent code, for a sample of countries (every other country needs `continent`).
    static let continentOfCountry: [Int16: Int16] = [
        // Europe
        40: 10005, 56: 10005, 208: 10005, 246: 10005, 250: 10005, 276: 10005, 300: 10005, 372: 10005, 380: 10005,
        528: 10005, 578: 10005, 616: 10005, 620: 10005, 724: 10005, 752: 10005, 756: 10005, 826: 10005,
        // Asia
        156: 10003, 356: 10003, 360: 10003, 392: 10003, 410: 10003, 704: 10003, 764: 10003,
        // Africa
        12: 10001, 231: 10001, 404: 10001, 566: 10001, 710: 10001, 818: 10001,
        // Oceania (the book's "Australia")
        36: 10004, 554: 10004,
        // The Americas
        124: 10006, 484: 10006, 840: 10006, 32: 10007, 76: 10007, 152: 10007, 170: 10007, 604: 10007,
    ]
}
