import Foundation
import Hummingbird
import RelinkCore
import RelinkStore

/// Managing short links beyond FDL: list a project's links, read one, change its destination, disable it, let
/// it expire. A short link in a path is URL-encoded, as FDL's `linkStats` takes it.
struct LinksController: Sendable {
    let service: ShortLinkService

    static let maximumPageSize = 1000

    func addRoutes(to group: RouterGroup<RelinkRequestContext>) {
        group.get(RouterPath(APIPath.links)) { request, context in try await list(request, context) }
        group.get(RouterPath("\(APIPath.links)/:shortLink")) { request, context in try await show(request, context) }
        group.patch(RouterPath("\(APIPath.links)/:shortLink")) { request, context in try await update(request, context) }
        group.post(RouterPath("\(APIPath.links)/:shortLink/refreshPreview")) { request, context in try await refreshPreview(request, context) }
    }

    /// Fetches the link's destination page now (at most a few seconds) and answers the link with its new card.
    func refreshPreview(_ request: Request, _ context: RelinkRequestContext) async throws -> ManagedLink {
        let caller = try context.requireCaller()
        let record = try await service.storedLink(try Self.shortLinkParameter(context), caller: caller)
        return service.managed(try await service.refreshPreview(record))
    }

    func list(_ request: Request, _ context: RelinkRequestContext) async throws -> LinkListResponse {
        let caller = try context.requireCaller()
        let parameters = request.uri.queryParameters
        // One value each, as linkStats takes its own: which of two a request meant would be a guess.
        guard ["pageSize", "pageToken", "q"].allSatisfy({ parameters.getAll($0).count <= 1 }) else {
            throw APIError.invalidArgument("pageSize, pageToken and q may each be given once.")
        }
        let pageSize = try Self.integer(parameters.get("pageSize"), name: "pageSize", default: 100, in: 1...Self.maximumPageSize)
        let before: Int64?
        if let token = parameters.get("pageToken"), !token.isEmpty {
            guard let id = Int64(token), id > 0 else { throw APIError.invalidArgument("pageToken is not one this API gave out.") }
            before = id
        } else {
            before = nil
        }
        // Read a few at a time, and the page ends early past `maximumPageBytes`: a link can be 64 KB, and a thousand of
        // them for each of many slow readers would take gigabytes.
        var page: [ManagedLink] = []
        var bytes = 0
        var cursor = before
        var more = false
        reading: while true {
            let wanted = min(Self.readChunk, pageSize - page.count)
            // `q`: only links whose code, long link or name contains it (ASCII case ignored), as the console searches.
            let records = try await service.store.links(
                projectId: caller.project.id, matching: parameters.get("q"), beforeId: cursor, limit: wanted + 1)
            for record in records.prefix(wanted) {
                let link = service.managed(record)
                let size = (try? JSONEncoder().encode(link).count) ?? 0
                if !page.isEmpty, bytes + size > Self.maximumPageBytes {
                    more = true
                    break reading
                }
                page.append(link)
                bytes += size
                cursor = record.id
            }
            more = records.count > wanted
            if !more || page.count == pageSize { break }
        }
        return LinkListResponse(links: page, nextPageToken: more ? cursor.map { String($0) } : nil)
    }

    /// Links read from the store at once while a page is filled.
    static let readChunk = 50
    /// Past this many bytes of links a page ends, with `nextPageToken` (always at least one link).
    static let maximumPageBytes = 4 << 20

    func show(_ request: Request, _ context: RelinkRequestContext) async throws -> ManagedLink {
        let caller = try context.requireCaller()
        let record = try await service.storedLink(try Self.shortLinkParameter(context), caller: caller)
        return service.managed(record)
    }

    func update(_ request: Request, _ context: RelinkRequestContext) async throws -> ManagedLink {
        let caller = try context.requireCaller()
        let record = try await service.storedLink(try Self.shortLinkParameter(context), caller: caller)
        let body = try await request.decode(as: UpdateLinkRequest.self, context: context)
        return service.managed(try await service.update(record, with: body, caller: caller))
    }

    /// The `:shortLink` path parameter, percent-decoded.
    static func shortLinkParameter(_ context: RelinkRequestContext) throws -> String {
        let raw = context.parameters.get("shortLink") ?? ""
        guard let decoded = PercentEncoding.decode(Substring(raw), plusAsSpace: false), !decoded.isEmpty else {
            throw APIError.invalidArgument("The short link in the path is not URL-encoded text.")
        }
        return decoded
    }

    static func integer(_ text: String?, name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text else { return value }
        // ASCII digits only: `Int` also reads `+7`, which the API documents nowhere.
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = Int(text),
            range.contains(number)
        else {
            throw APIError.invalidArgument(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text.leadingScalars(40))'.")
        }
        return number
    }
}
