import Hummingbird
import OpenCoreData
import ServiceLifecycle

/// The HTTP API (README "Endpoints").
struct Routes: Sendable {
    let store: MoodStore
    let feed: LiveFeed
    let undoLog: UndoLog
    let maxBodySize: Int

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(JSONErrorMiddleware())
        router.post("/moods") { request, _ in try await createMood(request) }
        router.get("/moods") { request, _ in try await listMoods(request) }
        router.delete("/moods/:id") { _, context in try await deleteMood(context.parameters.require("id")) }
        router.post("/undo") { _, _ in try await undo() }
        router.get("/countries") { request, _ in
            try Self.refuseQuery(request)
            return JSON.response(["countries": try await store.countries()])
        }
        router.get("/continents") { request, _ in
            try Self.refuseQuery(request)
            return JSON.response(["continents": try await store.continents()])
        }
        router.get("/live") { request, _ in
            try Self.refuseQuery(request)
            return live()
        }
        return router
    }

    func createMood(_ request: Request) async throws -> Response {
        let body = try await collectBody(request)
        let new = try NewMood.parse(body)
        let mood = try await store.create(new)
        return JSON.response(mood, status: .created, headers: [.location: "/moods/" + Self.pathEncoded(mood.id)])
    }

    func listMoods(_ request: Request) async throws -> Response {
        let pairs = request.uri.queryParameters.map { (key: String($0.key).removingPercentEncoding ?? String($0.key), value: String($0.value)) }
        let query = try MoodQuery.parse(pairs)
        return JSON.response(try await store.list(query))
    }

    func deleteMood(_ rawID: String) async throws -> Response {
        let text = rawID.removingPercentEncoding ?? rawID
        guard let id = store.moodID(fromURI: text) else {
            throw APIError(.notFound, "no mood with id '\(NewMood.clip(text))' (an id is a mood's x-coredata:// URI, percent-encoded in the path)")
        }
        guard try await store.delete(id, undoLog: undoLog) else {
            throw APIError(.notFound, "no mood with id '\(NewMood.clip(text))'")
        }
        return Response(status: .noContent)
    }

    func undo() async throws -> Response {
        guard let mood = try await store.undoDeletion(undoLog) else {
            throw APIError(.conflict, "nothing to undo: no deletion is recorded")
        }
        return JSON.response(mood)
    }

    /// `text/event-stream`: one frame per change of the moods, until the client leaves or the server stops.
    func live() -> Response {
        let (events, end) = feed.subscribe()
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await withGracefulShutdownHandler {
                for await frame in events {
                    try await writer.write(ByteBuffer(string: frame))
                }
            } onGracefulShutdown: {
                end()
            }
            try await writer.finish(nil)
        })
    }

    /// The body, at most `maxBodySize` bytes (413 beyond).
    func collectBody(_ request: Request) async throws -> Data {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBodySize {
            throw APIError(.contentTooLarge, "the request body is larger than \(maxBodySize) bytes")
        }
        do {
            let buffer = try await request.body.collect(upTo: maxBodySize)
            return Data(buffer.readableBytesView)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {  // NIOTooManyBytesError
            throw APIError(.contentTooLarge, "the request body is larger than \(maxBodySize) bytes")
        }
    }

    static func refuseQuery(_ request: Request) throws {
        if let query = request.uri.query, !query.isEmpty {
            throw APIError.badRequest("this endpoint takes no query parameters")
        }
    }

    /// A mood id as one path segment.
    static func pathEncoded(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
    }
}
