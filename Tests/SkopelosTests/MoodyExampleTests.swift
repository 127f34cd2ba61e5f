import OpenCoreData
import Skopelos
import Testing

/// The Moody example writes through Skopelos and prints what it printed before (README, "The example").
@Suite("Moody example on Skopelos")
struct MoodyExampleTests {
    @Test(.enabled(if: MoodyProgram.url != nil, "the moody executable is not built beside the test runner"))
    func moodyPrintsItsRunAndPersistsTheMoods() async throws {
        let url = try DALTest.newStoreURL("Moody.sqlite")
        let process = Process()
        process.executableURL = MoodyProgram.url
        process.arguments = ["--store", url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        // Lines of the README's sample run, in order (written before moody used Skopelos).
        let expected = [
            "recorded a mood (rating 0) in France, Europe",
            "recorded a mood (rating 4) in Kenya, Africa",
            "moods by country:",
            "  Brazil (South America): 1 mood(s) — rating 3 #587b59 #2a1154 #b72d65",
            "  France (Europe): 1 mood(s) — rating 0 #eeed77 #4ca5b7 #8ba5af",
            "the mood list (a fetched results controller, sections by country):",
            "  section 0 Brazil: 1 mood(s)",
            "  section 4 Kenya: 1 mood(s)",
            "recording another mood in France, and re-rating the first mood in Japan:",
            "  list: begin updates",
            "  list: insert row [1, 1] (rating 4)",
            "  list: reload row [3, 0] (rating 1)",
            "  list: end updates (6 moods)",
            "  list: begin updates",
            "  list: delete section 4 (Kenya)",
            "  list: delete row [4, 0]",
            "  list: end updates (5 moods)",
            "deleted the only mood in Kenya: Kenya and Africa are deleted with it (3 objects to delete)",
            "reopening the store:",
            "  5 moods, 4 countries, 3 continents persisted",
            "  Brazil (South America): 1 mood(s) — rating 3 #587b59 #2a1154 #b72d65",
        ]
        var position = lines.startIndex
        for line in expected {
            guard let found = lines[position...].firstIndex(of: line) else {
                Issue.record("missing, or out of order: \(line)\n\(lines.joined(separator: "\n"))")
                return
            }
            position = found + 1
        }
        let saved = try #require(lines.first { $0.hasPrefix("saved 5 moods; the store assigned permanent IDs such as x-coredata://") })
        #expect(saved.hasSuffix("/Mood/p1"))
        #expect(try MoodyProgram.ratings(in: url) == [0, 1, 1, 3, 4])
    }
}
