import Foundation
import RelinkCore

/// Where short links live. Implementations make inserts atomic: a code or an idempotency key is taken once.
public protocol LinkRepository: Sendable {
    /// Inserts a link. Throws `StoreError.codeTaken` when its domain already has the code, and
    /// `StoreError.idempotencyKeyTaken` when another link has its idempotency key. `events`' deliveries are written
    /// in the insert's transaction.
    func insertLink(_ draft: ShortLinkDraft, events: EventDeliveries<ShortLinkRecord>?) async throws -> ShortLinkRecord
    func link(domain: String, code: String) async throws -> ShortLinkRecord?
    func link(idempotencyKey: String) async throws -> ShortLinkRecord?
    /// A project's links, newest first, with ids below `beforeId` when given; with `matching`, only those whose code,
    /// long link or name contains it (ignoring ASCII case).
    func links(projectId: String, matching: String?, beforeId: Int64?, limit: Int) async throws -> [ShortLinkRecord]
    /// Changes the link with this id in one transaction. `change` is given the link as stored, which stays locked until
    /// the write, so changes made at once (two PATCHes, on one instance or several) apply one after the other, never
    /// one over the other. It returns the link to save, or nil to leave it as it is; what it throws is thrown here,
    /// and nothing is written. Saved are the parameters, long link, `disabled`, `expiresAt`, `archived`, `name`,
    /// `fetchPreview`, rules, limits and `idempotencyKey` (nil once the link no longer answers the request that
    /// minted it), with `updatedAt` stamped. Throws `StoreError.notFound` when the link is gone. `events`' deliveries,
    /// for the link as saved, are written in the same transaction; none when `change` left the link.
    /// - Returns: the link as it was stored, and as saved (nil when `change` left it).
    func updateLink(
        id: Int64, events: EventDeliveries<ShortLinkRecord>?, _ change: @escaping @Sendable (ShortLinkRecord) throws -> ShortLinkRecord?
    ) async throws -> (stored: ShortLinkRecord, saved: ShortLinkRecord?)
    /// Inserts `drafts` in one transaction, each unless its domain already has its code (an import run again, or a
    /// link minted meanwhile). Returns the codes of the drafts it skipped, as `domain\tcode`.
    func importLinks(_ drafts: [ShortLinkDraft]) async throws -> Set<String>
    /// Stores what the link's destination page said (not an edit of the link: `updatedAt` stays). Throws
    /// `StoreError.notFound` when the link is gone.
    func savePreview(linkId: Int64, preview: PagePreview) async throws
    /// Enabled links whose preview is to be fetched (their own `fetchPreview`, or every link of `projectIds`) and
    /// was never fetched or last fetched before `fetchedBefore`, never-fetched and oldest first.
    func linksDueForPreview(projectIds: [String], fetchedBefore: Date, limit: Int) async throws -> [ShortLinkRecord]
    /// How many stored links have a rule that asks for the click's country: a server without a country source says
    /// once at start that they never match.
    func countLinksWithCountryRules() async throws -> Int
}

extension LinkRepository {
    /// Inserts a link that sends no webhook event (an import, a restore, a test).
    public func insertLink(_ draft: ShortLinkDraft) async throws -> ShortLinkRecord {
        try await insertLink(draft, events: nil)
    }

    /// Changes a link, sending no webhook event.
    public func updateLink(
        id: Int64, _ change: @escaping @Sendable (ShortLinkRecord) throws -> ShortLinkRecord?
    ) async throws -> (stored: ShortLinkRecord, saved: ShortLinkRecord?) {
        try await updateLink(id: id, events: nil, change)
    }

    /// A project's links, newest first, with ids below `beforeId` when given.
    public func links(projectId: String, beforeId: Int64?, limit: Int) async throws -> [ShortLinkRecord] {
        try await links(projectId: projectId, matching: nil, beforeId: beforeId, limit: limit)
    }
}
