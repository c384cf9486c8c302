import Foundation
import RelinkAPI

extension InstallAttributionRequest {
    /// The claim both Swift APIs send (`Relink` and `RelinkClient.claimDeferredLink`), as the Android and
    /// JavaScript clients send it too.
    /// - Parameters:
    ///   - platform: the app's platform.
    ///   - appId: its bundle ID or package name.
    ///   - installId: the install's id, kept across launches.
    ///   - device: the device's signals.
    ///   - clipboardLink: the clipboard's text; sent only when it is a claim link.
    ///   - installReferrer: the Play install referrer.
    ///   - sdkVersion: which client sends it.
    init(
        platform: AppPlatform, appId: String, installId: String, device: DeviceSignals, clipboardLink: String?,
        installReferrer: String?, sdkVersion: String
    ) {
        self.init(
            bundleId: appId, iosVersion: platform == .iOS ? device.osVersion : nil, sdkVersion: sdkVersion,
            appInstallationTime: device.installedAt.map { FlexibleValue(String(Int($0.timeIntervalSince1970))) },
            uniqueMatchLinkToCheck: clipboardLink.flatMap { RelinkClient.isClaimLink($0) ? $0 : nil },
            device: .init(
                screenResolutionHeight: device.screenHeight.map { FlexibleValue(String($0)) },
                screenResolutionWidth: device.screenWidth.map { FlexibleValue(String($0)) }, languageCode: device.languageCode,
                languageCodeRaw: device.languageCode, timezone: device.timeZone, deviceModelName: device.deviceModelName),
            platform: platform.rawValue, installReferrer: installReferrer, installId: installId, osVersion: device.osVersion)
    }
}
