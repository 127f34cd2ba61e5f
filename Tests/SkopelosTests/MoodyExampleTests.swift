import OpenCoreData
import Skopelos
import Testing

/// The Moody example (README, "The example"), run as a subprocess: the guided tour, the shell, and bad input.
@Suite("Moody example", .enabled(if: MoodyProgram.url != nil, "the moody executable is not built beside the test runner"))
struct MoodyExampleTests {
    static func run(_ arguments: [String], input: String? = nil) throws -> (status: Int32, stdout: [String], stderr: String) {
        let process = Process()
        process.executableURL = MoodyProgram.url
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        // stderr goes to a file, not a second pipe: a child that writes more than a pipe holds there (a sanitizer's
        // report at exit) would block while stdout is read to its end, and the test would wait forever.
        let errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent("moody-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorsURL) }
        let errors = try FileHandle(forWritingTo: errorsURL)
        defer { try? errors.close() }
        process.standardError = errors
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorData = (try? Data(contentsOf: errorsURL)) ?? Data()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init), String(decoding: errorData, as: UTF8.self))
    }

    /// Checks that `expected` lines appear in `lines` in this order.
    static func expectInOrder(_ expected: [String], in lines: [String]) {
        var position = lines.startIndex
        for line in expected {
            guard let found = lines[position...].firstIndex(of: line) else {
                Issue.record("missing, or out of order: \(line)\n\(lines.joined(separator: "\n"))")
                return
            }
            position = found + 1
        }
    }

    @Test func theTourRecordsListsDeletesUndoesAndPersists() throws {
        let url = try DALTest.newStoreURL("Moody.sqlite")
        let result = try Self.run(["--store", url.path])
        #expect(result.status == 0, "\(result.stderr)")
        // The model's rules and the book's data: 5 places, one mood each, then a second French mood; deleting
        // Kenya's only mood deletes Kenya and Africa; undoing brings the three back.
        Self.expectInOrder([
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
            "regions (one fetch of the abstract entity GeographicRegion: 5 countries, 4 continents):",
            "  country France: 2 mood(s)",
            "  continent Europe: 3 mood(s) in 2 countries",
            "  list: begin updates",
            "  list: delete section 4 (Kenya)",
            "  list: delete row [4, 0]",
            "  list: end updates (5 moods)",
            "deleted the only mood in Kenya: Kenya and Africa are deleted with it (3 objects to delete)",
            "regions (one fetch of the abstract entity GeographicRegion: 4 countries, 3 continents):",
            "undoing the deletion:",
            "  list: insert section 4 (Kenya)",
            "  list: insert row [4, 0] (rating 4)",
            "undid it: the mood, Kenya and Africa are back (3 objects inserted again)",
            "reopening the store:",
            "  6 moods, 5 countries, 4 continents persisted",
            "  Kenya (Africa): 1 mood(s) — rating 4 #aac4a3 #91e496 #d959be",
            "  continent Africa: 1 mood(s) in 1 country",
        ], in: result.stdout)
        let saved = try #require(result.stdout.first { $0.hasPrefix("saved 5 moods; the store assigned permanent IDs such as x-coredata://") })
        #expect(saved.hasSuffix("/Mood/p1"))
        #expect(try MoodyProgram.ratings(in: url) == [0, 1, 1, 3, 4, 4])
    }

    @Test func theShellOffersTheSameOperations() throws {
        let url = try DALTest.newStoreURL("Shell.sqlite")
        let result = try Self.run(["shell", "--store", url.path], input: """
            record kenya 3
            record france
            record atlantis
            regions
            delete kenya
            regions
            undo
            list
            redo
            undo
            fly
            quit

            """)
        #expect(result.status == 0, "\(result.stderr)")
        Self.expectInOrder([
            "recorded a mood (rating 3) in Kenya, Africa",
            "recorded a mood (rating 2) in France, Europe",
            "record needs a place: France, Germany, Japan, Brazil, Kenya",
            "regions (one fetch of the abstract entity GeographicRegion: 2 countries, 2 continents):",
            "deleted the oldest mood in Kenya (3 object(s) to delete)",
            "regions (one fetch of the abstract entity GeographicRegion: 1 countries, 1 continents):",
            "undid the last change (3 inserted, 0 updated, 0 deleted)",
            "redid the last change (0 inserted, 0 updated, 3 deleted)",
            "undid the last change (3 inserted, 0 updated, 0 deleted)",
            "unknown command 'fly' — type 'help' for the commands",
        ], in: result.stdout)
        #expect(result.stdout.contains { $0.hasPrefix("  Kenya (Africa): 1 mood(s) — rating 3 ") })
        #expect(try MoodyProgram.ratings(in: url) == [2, 3])
    }

    @Test func aFileThatIsNotAStoreIsAOneLineErrorAndKept() throws {
        let url = try DALTest.newStoreURL("Noise.sqlite")
        let noise = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) })
        try noise.write(to: url)
        let result = try Self.run(["--store", url.path])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.hasPrefix("moody: "), "\(result.stderr)")
        #expect(try Data(contentsOf: url) == noise)
    }
}
