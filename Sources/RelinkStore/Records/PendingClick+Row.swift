import Foundation
import RelinkCore

extension PendingClick {
    init(row: some StoreRow) throws {
        self.init(
            id: try row.text("id"), projectId: try row.text("project_id"),
            // Only IOS and ANDROID are ever written.
            platform: AppPlatform(rawValue: try row.text("platform")) ?? .iOS, linkId: try row.optionalInteger("link_id"),
            appId: try row.optionalText("app_id"), requestedLink: try row.optionalText("kept_link") ?? row.text("requested_link"),
            createdAt: try row.date("created_at"),
            fingerprint: DeviceFingerprint(
                addressHash: try row.optionalText("address_hash"), networkHash: try row.optionalText("network_hash"),
                ipVersion: try row.optionalInteger("ip_version").flatMap { IPAddress.Version(rawValue: Int($0)) },
                osVersion: try row.optionalText("os_version"), device: try row.optionalText("device"),
                languages: StoreCoding.decode(languages: try row.text("languages")), screen: try row.optionalText("screen"),
                timeZone: try row.optionalText("time_zone")),
            claimedAt: try row.optionalDate("claimed_at"),
            confidence: try row.optionalText("confidence").flatMap(AttributionConfidence.init(rawValue:)),
            variant: try row.optionalText("variant"))
    }
}

extension InstallClaim {
    init(row: some StoreRow) throws {
        self.init(
            projectId: try row.text("project_id"), installId: try row.text("install_id"), response: try row.text("response"),
            createdAt: try row.date("created_at"))
    }
}
