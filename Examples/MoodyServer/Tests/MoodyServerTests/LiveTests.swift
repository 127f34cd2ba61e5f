import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// The frames of a `text/event-stream` response, as they arrive.
struct EventReader: Sendable {
    let frames: AsyncStream<String>
    let status: Int
    let contentType: String?
    private let reading: Task<Void, Never>

    init(server: TestServer) async throws {
        let response = try await server.client.execute(HTTPClientRequest(url: server.base + "/live"), timeout: .seconds(120))
        status = Int(response.status.code)
        contentType = response.headers.first(name: "Content-Type")
        let (frames, continuation) = AsyncStream.makeStream(of: String.self)
        self.frames = frames
        reading = Task {
            var pending = ""
            do {
                for try await buffer in response.body {
                    pending += String(buffer: buffer)
                    while let end = pending.range(of: "\n\n") {
                        continuation.yield(String(pending[..<end.lowerBound]))
                        pending.removeSubrange(..<end.upperBound)
                    }
                }
            } catch {}
            continuation.finish()
        }
    }

    /// The next frame `matches` accepts (frames before it are skipped); fails after `seconds`.
    func next(within seconds: Double = 10, where matches: @escaping @Sendable (String) -> Bool) async throws -> String {
        let frames = self.frames
        return try await withTimeout(seconds) {
            for await frame in frames where matches(frame) { return frame }
            throw StreamEnded()
        }
    }

    /// The JSON of an `event: kind` frame.
    static func data(of frame: String) throws -> [String: Any] {
        let line = try #require(frame.split(separator: "\n").first { $0.hasPrefix("data: ") })
        return try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any])
    }

    struct StreamEnded: Error {}
}

@Suite("Live updates (GET /live)", .timeLimit(.minutes(2)))
struct LiveTests {
    @Test("a subscriber receives an insert made by another request, then its deletion")
    func insertThenDelete() async throws {
        try await TestServer.run { server in
            let events = try await EventReader(server: server)
            #expect(events.status == 200)
            #expect(events.contentType == "text/event-stream")
            _ = try await events.next { $0 == ": subscribed" }

            let mood = try await server.createMood(##"{"rating": 3, "country": 250, "colors": ["#abcdef"]}"##)
            let id = try #require(mood["id"] as? String)
            let insert = try await events.next { $0.hasPrefix("event: insert\n") }
            let inserted = try EventReader.data(of: insert)
            #expect(inserted["id"] as? String == id)
            #expect(inserted["rating"] as? Int == 3)
            #expect(inserted["colors"] as? [String] == ["#abcdef"])
            #expect(inserted["country"] as? Int == 250)

            let encoded = try #require(id.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            #expect(try await server.send(.DELETE, "/moods/" + encoded).status == 204)
            let delete = try await events.next { $0.hasPrefix("event: delete\n") }
            #expect(try EventReader.data(of: delete)["id"] as? String == id)
        }
    }

    @Test("a save by another server (another coordinator) on the same SQLite file reaches the stream through history")
    func remoteChangeFromAnotherServer() async throws {
        let storeURL = try TestServer.temporaryStore()
        try await TestServer.run(storeURL: storeURL) { watched in
            let events = try await EventReader(server: watched)
            _ = try await events.next { $0 == ": subscribed" }
            try await TestServer.run(storeURL: storeURL) { other in
                let mood = try await other.createMood(#"{"rating": 5, "country": 392}"#)
                let insert = try await events.next { $0.hasPrefix("event: insert\n") }
                #expect(try EventReader.data(of: insert)["id"] as? String == mood["id"] as? String)
                #expect(try EventReader.data(of: insert)["continent"] as? Int == 10003)
            }
            // The other server's mood is also what a plain read on the watched server sees.
            #expect(try await watched.moods("/moods").map { $0["rating"] as? Int } == [5])
        }
    }
}
