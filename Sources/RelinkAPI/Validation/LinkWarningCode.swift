/// FDL's `DynamicLinkWarning` codes that Relink emits, plus two of its own for `ofl` and one for rules.
///
/// FDL's ad and social-URL codes (`BAD_AD_PARAM`, `NOT_URI_SOCIAL_URL`, `BAD_URI_SCHEME_SOCIAL_URL`) belong to
/// undocumented parameters and are never emitted, so they are not listed.
public enum LinkWarningCode: String, CaseIterable, Sendable, Codable {
    case notInProjectAndroidPackageName = "NOT_IN_PROJECT_ANDROID_PACKAGE_NAME"
    case notIntegerAndroidPackageMinVersion = "NOT_INTEGER_ANDROID_PACKAGE_MIN_VERSION"
    case unnecessaryAndroidPackageMinVersion = "UNNECESSARY_ANDROID_PACKAGE_MIN_VERSION"
    case notURIAndroidLink = "NOT_URI_ANDROID_LINK"
    case unnecessaryAndroidLink = "UNNECESSARY_ANDROID_LINK"
    case notURIAndroidFallbackLink = "NOT_URI_ANDROID_FALLBACK_LINK"
    case badURISchemeAndroidFallbackLink = "BAD_URI_SCHEME_ANDROID_FALLBACK_LINK"
    case notInProjectIOSBundleID = "NOT_IN_PROJECT_IOS_BUNDLE_ID"
    case notInProjectIPadBundleID = "NOT_IN_PROJECT_IPAD_BUNDLE_ID"
    case unnecessaryIOSURLScheme = "UNNECESSARY_IOS_URL_SCHEME"
    case notNumericIOSAppStoreID = "NOT_NUMERIC_IOS_APP_STORE_ID"
    case unnecessaryIOSAppStoreID = "UNNECESSARY_IOS_APP_STORE_ID"
    case notMatchingIOSBundleIDAndStoreID = "NOT_MATCHING_IOS_BUNDLE_ID_AND_STORE_ID"
    case notURIIOSFallbackLink = "NOT_URI_IOS_FALLBACK_LINK"
    case badURISchemeIOSFallbackLink = "BAD_URI_SCHEME_IOS_FALLBACK_LINK"
    case notURIIPadFallbackLink = "NOT_URI_IPAD_FALLBACK_LINK"
    case badURISchemeIPadFallbackLink = "BAD_URI_SCHEME_IPAD_FALLBACK_LINK"
    /// Relink's: `ofl` is not a URI, so other platforms go to `link`.
    case notURIOtherPlatformFallbackLink = "NOT_URI_OTHER_PLATFORM_FALLBACK_LINK"
    /// Relink's: `ofl` is not http(s), so other platforms go to `link`.
    case badURISchemeOtherPlatformFallbackLink = "BAD_URI_SCHEME_OTHER_PLATFORM_FALLBACK_LINK"
    case notURISocialImageLink = "NOT_URI_SOCIAL_IMAGE_LINK"
    case badURISchemeSocialImageLink = "BAD_URI_SCHEME_SOCIAL_IMAGE_LINK"
    case linkWithFragments = "LINK_WITH_FRAGMENTS"
    case badDebugParam = "BAD_DEBUG_PARAM"
    case deprecatedParam = "DEPRECATED_PARAM"
    case unrecognizedParam = "UNRECOGNIZED_PARAM"
    case tooLongParam = "TOO_LONG_PARAM"
    /// Relink's: a rule asks for the click's country, and this server has no country source (`--country-header`,
    /// `--geoip`), so the rule never matches.
    case countryRulesWithoutCountrySource = "COUNTRY_RULES_WITHOUT_COUNTRY_SOURCE"

    public var name: String { rawValue }
}
