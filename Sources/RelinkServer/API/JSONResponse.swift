import Foundation
import HTTPTypes
import Hummingbird

/// The API's JSON: the encoder responses use (slashes unescaped so URLs read as URLs), and request bodies read
/// with FDL's errors.
enum JSONResponse {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// Decodes a JSON body, with FDL's message for anything that is not the expected JSON.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: RelinkRequestContext) async throws -> T {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: context.maxUploadSize)
        } catch let error as any HTTPResponseError {
            throw error  // 413 for a body over the limit
        } catch {
            // The client closed the connection, or a chunked body broke off: the client's fault, not ours.
            throw APIError.invalidArgument("The request body ended before it was complete.")
        }
        guard body.readableBytes > 0 else { throw APIError.invalidArgument("The request needs a JSON body.") }
        do {
            return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw APIError.invalidArgument("Invalid JSON payload received. Invalid value at '\(path)': \(context.debugDescription)")
        } catch {
            throw APIError.invalidArgument("Invalid JSON payload received: the body is not a JSON object of the expected shape.")
        }
    }
}
