import Foundation
import HTTPTypes
import Hummingbird
import RelinkCore

/// The API's JSON responses: the encoder they use (slashes unescaped so URLs read as URLs, keys sorted).
enum JSONResponse {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()
}

/// The API's request bodies, as `request.decode(as:context:)` reads them through the context: JSON, with FDL's
/// messages for anything that is not the expected JSON (Google's 400 `INVALID_ARGUMENT`), and 413 for a body over
/// the context's limit.
public struct APIRequestDecoder: RequestDecoder {
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
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
        let data = Data(body.readableBytesView)
        // A key given twice would mean one thing here (Foundation keeps the first) and another to a proxy that
        // checked the body (most keep the last).
        guard JSONShape.isUTF8Text(data) else {
            throw APIError.invalidArgument("Invalid JSON payload received: the request body is not UTF-8 JSON text.")
        }
        if let problem = JSONShape.problem(data, subject: "the request body") {
            throw APIError.invalidArgument("Invalid JSON payload received: \(problem).")
        }
        switch RequestBodyShape.problem(in: data, schema: String(describing: T.self)) {
        case .unknownField(let unknown)?:
            let name = String(String.UnicodeScalarView(unknown.name.unicodeScalars.prefix(60)))
            throw APIError.invalidArgument(
                "Invalid JSON payload received. Unknown name \"\(name)\"\(unknown.path.isEmpty ? "" : " at '\(unknown.path)'"): Cannot find field.")
        case .unreadable?:
            // Malformed JSON gets the decoder's own message below; this one only for what the decoder would take.
            if (try? JSONDecoder().decode(T.self, from: data)) != nil {
                throw APIError.invalidArgument(
                    "Invalid JSON payload received: a number is out of range or a string is not Unicode text.")
            }
        case nil:
            break
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw APIError.invalidArgument("Invalid JSON payload received. Invalid value at '\(path)': \(context.debugDescription)")
        } catch {
            throw APIError.invalidArgument("Invalid JSON payload received: the body is not a JSON object of the expected shape.")
        }
    }
}
