import Foundation
import RelinkCore

/// Pending clicks and their claims. `claim` is atomic: a click goes to one install, an install gets one answer.
public protocol DeferredLinkRepository: Sendable {
    func insertPendingClicks(_ clicks: [PendingClick]) async throws
    /// Adds what the preview page's script measured in the browser; false when there is no such unclaimed click.
    func addBrowserSignals(clickId: String, screen: String?, timeZone: String?, languages: [String]) async throws -> Bool
    func pendingClick(id: String) async throws -> PendingClick?
    /// The candidates worth scoring for a claim, newest first: of a project's clicks from `since` to `until`, the
    /// `bounds.perAddress` most recent from the address of `fingerprint` and the `bounds.perNetwork` most recent from
    /// its network (any platform, claimed or not: the bounds are on what is read), then those of `platform` and
    /// `appId` that are unclaimed or claimed only as `WEAK`. Each read is one range of an index ending with the time.
    func candidateClicks(
        projectId: String, platform: AppPlatform, appId: String, since: Date, until: Date, fingerprint: DeviceFingerprint,
        bounds: CandidateBounds
    ) async throws -> [PendingClick]
    /// How many clicks of a project came from an address since `since`, claimed or not, counting at most `limit`
    /// of the most recent: all of them (a busy address is a shared one: carrier NAT, public Wi-Fi), and those of
    /// `platform` with the OS version and device of `fingerprint` (several such make any match from there
    /// ambiguous), and those made since `recentSince` (the fingerprint window). When the count reaches `limit`,
    /// `oldestCounted` says when the oldest counted click was made.
    func addressActivity(
        projectId: String, addressHash: String, since: Date, recentSince: Date, platform: AppPlatform, fingerprint: DeviceFingerprint,
        limit: Int
    ) async throws -> AddressActivity
    /// In one transaction: when `installId` was answered before, that answer; else, when `clickId` is given, takes
    /// the click if nobody has, or if an earlier claim took it only as `WEAK` and this one is `DEFAULT` or `UNIQUE`;
    /// then keeps `response` for the install's retries. `events`' deliveries, for the click taken, are written in the
    /// same transaction when the outcome is `claimed` with a click (not `takenBack`), and only then.
    func claim(
        clickId: String?, confidence: AttributionConfidence?, projectId: String, installId: String?, response: String, at: Date,
        events: EventDeliveries<String>?
    ) async throws -> ClaimOutcome
    func installClaim(projectId: String, installId: String) async throws -> InstallClaim?
    /// The kept clicks of one short link, newest first, claimed or not (`relink deferred test` watches them).
    func linkClicks(linkId: Int64, limit: Int) async throws -> [PendingClick]
    /// Counts one shadow decision (see `ShadowMatchCount`) on the UTC `day` (`EventCounterKey.day(of:)`).
    func recordShadowMatch(projectId: String, day: Int, confidence: AttributionConfidence?, sameClick: Bool) async throws
    /// A project's shadow decisions from `fromDay` on, summed per confidence and outcome.
    func shadowMatches(projectId: String, fromDay: Int) async throws -> [ShadowMatchCount]
    /// Deletes up to `limit` each of a project's clicks created before `clicksBefore`, its kept links last clicked
    /// before then (and a grace period), and its claims created before `claimsBefore`, in one short write: called again
    /// until it removes nothing, so other writes get their turn between batches.
    /// - Returns: the rows removed.
    func purgeDeferredData(projectId: String, clicksBefore: Date, claimsBefore: Date, limit: Int) async throws -> Int
    /// The projects with pending clicks, kept links, claims or shadow counts stored: also those no longer in
    /// routes.json, whose rows the purge must still reach.
    func projectsWithDeferredData() async throws -> Set<String>
    /// How many pending clicks a project holds, claimed or not, counting at most `limit`: the work is bounded by the
    /// cap it is checked against, not by the table.
    func pendingClickCount(projectId: String, limit: Int) async throws -> Int
}

/// Small named values the service keeps, such as the secret for hashing addresses.
public protocol SettingsRepository: Sendable {
    func setting(_ key: String) async throws -> String?
    /// Stores `value` unless the key has one, and returns the value that is stored (so concurrent starts agree).
    func settingInsertingIfAbsent(_ key: String, value: String) async throws -> String
    /// Deletes a setting; false when there was none.
    func removeSetting(_ key: String) async throws -> Bool
}

extension DeferredLinkRepository {
    /// A claim that sends no webhook event.
    public func claim(
        clickId: String?, confidence: AttributionConfidence?, projectId: String, installId: String?, response: String, at date: Date
    ) async throws -> ClaimOutcome {
        try await claim(
            clickId: clickId, confidence: confidence, projectId: projectId, installId: installId, response: response, at: date, events: nil)
    }
}
