import AsyncHTTPClient
import Foundation
import Logging
@testable import MoodyServerCore
import NIOCore
import NIOHTTP1
import Testing

/// A real server on 127.0.0.1 (a free port), over an SQLite file in a fresh directory, and an HTTP client.
struct TestServer: Sendable {
    let client: HTTPClient
    let port: Int
    let storeURL: URL

    var base: String { "http://127.0.0.1:\(port)" }

    struct Reply: Sendable {
        let status: Int
        let body: Data
        let contentType: String?

        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any], "not a JSON object: \(text)")
        }
        /// The message of a `{"error": "…"}` body, nil if the body is anything else.
        var errorMessage: String? {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any], object.count == 1 else { return nil }
            return object["error"] as? String
        }
    }

    func send(_ method: HTTPMethod, _ path: String, body: String? = nil, bytes: Data? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        } else if let bytes {
            request.body = .bytes(ByteBuffer(bytes: bytes))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let collected = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), body: Data(collected.readableBytesView), contentType: response.headers.first(name: "Content-Type"))
    }

    func get(_ path: String) async throws -> Reply { try await send(.GET, path) }
    func post(_ path: String, _ body: String) async throws -> Reply { try await send(.POST, path, body: body) }

    /// Posts a mood and returns its JSON.
    @discardableResult
    func createMood(_ body: String) async throws -> [String: Any] {
        let reply = try await post("/moods", body)
        #expect(reply.status == 201, "POST /moods \(body): \(reply.status) \(reply.text)")
        return try reply.json()
    }

    /// The moods of `GET path`.
    func moods(_ path: String) async throws -> [[String: Any]] {
        let reply = try await get(path)
        #expect(reply.status == 200, "GET \(path): \(reply.status) \(reply.text)")
        return try #require(try reply.json()["moods"] as? [[String: Any]])
    }

    static func temporaryStore() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("moody-server-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("moody.sqlite")
    }

    /// Starts a server on `storeURL` (a fresh store if nil), runs `body`, then shuts the server and the client down
    /// — also when `body` throws.
    static func run(storeURL: URL? = nil, _ body: (TestServer) async throws -> Void) async throws {
        let storeURL = try storeURL ?? temporaryStore()
        var logger = Logger(label: "MoodyServerTests")
        logger.logLevel = .warning
        let server = try MoodyServer(configuration: ServerConfiguration(store: StoreLocation(fileURL: storeURL), port: 0, handlesSignals: false), logger: logger)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        var failure: (any Error)?
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                do {
                    let port = try #require(await server.listeningPort(), "the server did not start")
                    try await body(TestServer(client: client, port: port, storeURL: storeURL))
                } catch {
                    failure = error
                }
                await server.shutdown()
                try await group.waitForAll()
            }
        } catch {
            failure = failure ?? error
        }
        try await client.shutdown()
        if let failure { throw failure }
    }
}

/// Runs `body` with a time limit; fails the test if it takes longer.
func withTimeout<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next(), let value = result else {
            throw TimeoutError(seconds: seconds)
        }
        return value
    }
}

struct TimeoutError: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "timed out after \(seconds) s" }
}
