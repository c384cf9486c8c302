import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// Sends `body` as the API takes it: JSON, slashes unescaped (links stay readable in logs and captures).
    /// - Throws: the encoder's error.
    mutating func setJSONBody(_ body: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        httpBody = try encoder.encode(body)
        setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
}
