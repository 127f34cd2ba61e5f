import Hummingbird

/// A request the server refuses: its status (4xx) and a message, sent as `{"error": "…"}`.
struct APIError: Error, Sendable {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }
}

/// The JSON every error response carries.
struct ErrorBody: Codable, Sendable {
    let error: String
}

/// Turns every error a route throws into a JSON response: ``APIError`` with its status, Hummingbird's own HTTP
/// errors (no such route → 404, a body over the limit → 413) with theirs, anything else into a 500 whose details
/// go to the log only.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return JSON.response(ErrorBody(error: error.message), status: error.status)
        } catch let error as HTTPError {
            return JSON.response(ErrorBody(error: error.body ?? Self.describe(error.status)), status: error.status, headers: error.headers)
        } catch let error as any HTTPResponseError {
            return JSON.response(ErrorBody(error: Self.describe(error.status)), status: error.status)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)", "uri": "\(request.uri)"])
            return JSON.response(ErrorBody(error: "internal error"), status: .internalServerError)
        }
    }

    static func describe(_ status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: "no such resource"
        case .methodNotAllowed: "method not allowed"
        case .contentTooLarge: "request body too large"
        default: status.reasonPhrase.isEmpty ? "HTTP \(status.code)" : status.reasonPhrase
        }
    }
}
