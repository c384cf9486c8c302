import Foundation

extension AttributionDebug.Install {
    /// The install's fingerprint as the debug answer shows it.
    /// - Parameters:
    ///   - fingerprint: the install's fingerprint.
    ///   - installedSecondsBeforeClaim: seconds from the install to the claim, when known.
    ///   - window: how far back clicks were candidates.
    public init(_ fingerprint: DeviceFingerprint, installedSecondsBeforeClaim: Int?, window: TimeInterval) {
        self.init(
            addressKnown: fingerprint.addressHash != nil, osVersion: fingerprint.osVersion, device: fingerprint.device,
            languages: fingerprint.languages, screen: fingerprint.screen, timeZone: fingerprint.timeZone,
            installedSecondsBeforeClaim: installedSecondsBeforeClaim, windowSeconds: Int(window))
    }
}
