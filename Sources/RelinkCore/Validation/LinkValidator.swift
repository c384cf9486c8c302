/// Checks link parameters the way FDL did: hard errors for what can never redirect, warnings for the rest.
public enum LinkValidator {
    public struct Result: Sendable, Equatable {
        public var warnings: [LinkWarning] = []
        public var errors: [LinkError] = []

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(warnings: [LinkWarning] = [], errors: [LinkError] = []) {
            self.warnings = warnings
            self.errors = errors
        }
    }

    /// How a value that should be a URL turned out.
    enum URIKind {
        case http(AbsoluteURI)
        case otherScheme(AbsoluteURI)
        case notURI
    }

    static func classify(_ value: String) -> URIKind {
        guard let uri = AbsoluteURI(value) else { return .notURI }
        return uri.isHTTP ? .http(uri) : .otherScheme(uri)
    }

    /// Errors and warnings; with `warnings: false` only the errors, which is all a redirect needs (the warnings
    /// are for the debug page, the CLI and the API).
    /// - Parameters:
    ///   - parameters: the link's parameters.
    ///   - prefix: its domain URI prefix.
    ///   - context: the link domains and project to check against.
    ///   - warnings: whether to work out warnings too (they cost time, and only the debug page and the API show them).
    /// - Returns: FDL's warnings and the errors that keep the link from redirecting.
    public static func validate(
        _ parameters: LinkParameters, prefix: DomainURIPrefix?, context: LinkValidationContext = .init(), warnings: Bool = true
    ) -> Result {
        var result = Result()
        validateLink(parameters, prefix: prefix, context: context, into: &result)
        validateFallbackDestinations(parameters, prefix: prefix, context: context, into: &result)
        guard warnings else {
            result.warnings = []
            return result
        }
        validateAndroid(parameters, project: context.project, into: &result)
        validateIOS(parameters, project: context.project, into: &result)
        checkFallback(parameters, .ofl, .notURIOtherPlatformFallbackLink, .badURISchemeOtherPlatformFallbackLink, into: &result)
        checkFallback(parameters, .si, .notURISocialImageLink, .badURISchemeSocialImageLink, into: &result)
        if let debug = parameters.d, debug != "1" {
            result.warnings.append(
                LinkWarning(
                    .badDebugParam, parameter: "d", message: "'d' must be 1 to show the debug page; '\(debug.leadingScalars(20))' is ignored."))
        }
        // UTF-8 length bounds the character count from above, so most values skip counting characters.
        for (parameter, value) in parameters.entries
        where value.utf8.count > LongLink.maximumParameterLength && value.count > LongLink.maximumParameterLength {
            result.warnings.append(
                LinkWarning(
                    .tooLongParam, parameter: parameter.name,
                    message:
                        "'\(parameter.name)' is \(value.count) characters; values over \(LongLink.maximumParameterLength) may be cut by browsers and stores."
                ))
        }
        return result
    }

    private static func validateLink(
        _ parameters: LinkParameters, prefix: DomainURIPrefix?, context: LinkValidationContext, into result: inout Result
    ) {
        guard let link = parameters.link else {
            result.errors.append(
                LinkError(
                    .missingLink, parameter: "link",
                    message: "The link has no 'link' parameter; every Dynamic Link needs a deep link (link=https://…)."))
            return
        }
        switch classify(link) {
        case .notURI:
            result.errors.append(
                LinkError(
                    .notURILink, parameter: "link",
                    message: "'link' must be an absolute http(s) URL; '\(link.leadingScalars(200))' is not one."))
        case .otherScheme(let uri):
            result.errors.append(
                LinkError(
                    .badURISchemeLink, parameter: "link",
                    message: "'link' must be an http or https URL; '\(link.leadingScalars(200))' uses the \(uri.scheme): scheme."))
        case .http(let uri):
            if let domain = linkDomain(containing: uri, prefix: prefix, context: context) {
                result.errors.append(
                    LinkError(
                        .linkIsDynamicLink, parameter: "link",
                        message: "'link' points into the Relink link domain \(domain), so the click would redirect to itself; use the app's web URL."
                    ))
            }
            if let fragment = uri.fragment {
                result.warnings.append(
                    LinkWarning(
                        .linkWithFragments, parameter: "link",
                        message:
                            "'link' has a fragment (#\(fragment.leadingScalars(40))); the Play Store and some apps drop fragments, so carry that state in the path or query."
                    ))
            }
        }
    }

    /// A fallback that leads back into a link domain would loop like such a `link` (or send the click through another
    /// project's link): an error, as for `link`.
    private static func validateFallbackDestinations(
        _ parameters: LinkParameters, prefix: DomainURIPrefix?, context: LinkValidationContext, into result: inout Result
    ) {
        for parameter in [LinkParameter.ofl, .afl, .ifl, .ipfl] {
            guard let value = parameters[parameter], case .http(let uri) = classify(value),
                let domain = linkDomain(containing: uri, prefix: prefix, context: context)
            else { continue }
            result.errors.append(
                LinkError(
                    .linkIsDynamicLink, parameter: parameter.name,
                    message:
                        "'\(parameter.name)' points into the Relink link domain \(domain), so the click would redirect back to Relink; use a web URL or a store page."
                ))
        }
    }

    /// The link domain (this link's own prefix or any project's) a click on `uri` would come back to, if any.
    /// - Parameters:
    ///   - uri: a destination.
    ///   - prefix: the link's own domain URI prefix.
    ///   - context: every project's link domains.
    /// - Returns: the domain, or nil when `uri` leads elsewhere.
    public static func linkDomain(containing uri: AbsoluteURI, prefix: DomainURIPrefix?, context: LinkValidationContext) -> DomainURIPrefix? {
        if let prefix, uri.isUnder(prefix) { return prefix }
        return context.linkDomains.first { uri.isUnder($0) }
    }

    private static func validateAndroid(_ parameters: LinkParameters, project: Project?, into result: inout Result) {
        if let apn = parameters.apn, let project, !project.android.contains(where: { $0.packageName == apn }) {
            result.warnings.append(
                LinkWarning(
                    .notInProjectAndroidPackageName, parameter: "apn",
                    message: "'\(apn)' is not an Android app of project '\(project.id)'; add it to routes.json or fix 'apn'."))
        }
        checkFallback(parameters, .afl, .notURIAndroidFallbackLink, .badURISchemeAndroidFallbackLink, into: &result)
        if let amv = parameters.amv {
            if parameters.amvVersionCode == nil {
                result.warnings.append(
                    LinkWarning(
                        .notIntegerAndroidPackageMinVersion, parameter: "amv",
                        message: "'amv' must be an integer versionCode; '\(amv.leadingScalars(40))' is ignored."))
            } else if parameters.apn == nil {
                result.warnings.append(
                    LinkWarning(
                        .unnecessaryAndroidPackageMinVersion, parameter: "amv",
                        message: "'amv' has no effect without 'apn'."))
            }
        }
        if let al = parameters.al {
            if AbsoluteURI(al) == nil {
                result.warnings.append(
                    LinkWarning(.notURIAndroidLink, parameter: "al", message: "'al' must be an absolute URI; '\(al.leadingScalars(80))' is ignored."))
            } else if al == parameters.link {
                result.warnings.append(
                    LinkWarning(.unnecessaryAndroidLink, parameter: "al", message: "'al' equals 'link' and can be left out."))
            }
        }
    }

    private static func validateIOS(_ parameters: LinkParameters, project: Project?, into result: inout Result) {
        if let ibi = parameters.ibi, let project, !project.ios.contains(where: { $0.bundleId == ibi }) {
            result.warnings.append(
                LinkWarning(
                    .notInProjectIOSBundleID, parameter: "ibi",
                    message: "'\(ibi)' is not an iOS app of project '\(project.id)'; add it to routes.json or fix 'ibi'."))
        }
        if let ipbi = parameters.ipbi, let project,
            !project.ios.contains(where: { $0.bundleId == ipbi || $0.iPadBundleId == ipbi })
        {
            result.warnings.append(
                LinkWarning(
                    .notInProjectIPadBundleID, parameter: "ipbi",
                    message: "'\(ipbi)' is not an iOS or iPad app of project '\(project.id)'; add it to routes.json or fix 'ipbi'."
                ))
        }
        if parameters.ius != nil, parameters.ibi == nil, parameters.ipbi == nil {
            result.warnings.append(
                LinkWarning(.unnecessaryIOSURLScheme, parameter: "ius", message: "'ius' has no effect without 'ibi' or 'ipbi'."))
        }
        if let isi = parameters.isi {
            if !isi.allSatisfy(\.isASCIIDigitCharacter) {
                result.warnings.append(
                    LinkWarning(
                        .notNumericIOSAppStoreID, parameter: "isi",
                        message:
                            "'isi' must be the numeric App Store ID; '\(isi.leadingScalars(40))' is ignored, so iOS clicks go to the web instead of the App Store."
                    ))
            } else if parameters.ibi == nil {
                result.warnings.append(
                    LinkWarning(.unnecessaryIOSAppStoreID, parameter: "isi", message: "'isi' has no effect without 'ibi'."))
            } else if let app = project?.ios.first(where: { $0.bundleId == parameters.ibi }),
                let storeId = app.appStoreId, storeId != isi
            {
                result.warnings.append(
                    LinkWarning(
                        .notMatchingIOSBundleIDAndStoreID, parameter: "isi",
                        message: "'isi' \(isi) is not the App Store ID of '\(app.bundleId)' (\(storeId)); the App Store would show another app."
                    ))
            }
        }
        checkFallback(parameters, .ifl, .notURIIOSFallbackLink, .badURISchemeIOSFallbackLink, into: &result)
        checkFallback(parameters, .ipfl, .notURIIPadFallbackLink, .badURISchemeIPadFallbackLink, into: &result)
    }

    /// A URL-valued parameter that must be http(s): warned about, and then ignored by the redirect.
    private static func checkFallback(
        _ parameters: LinkParameters, _ parameter: LinkParameter, _ notURI: LinkWarningCode,
        _ badScheme: LinkWarningCode, into result: inout Result
    ) {
        guard let value = parameters[parameter] else { return }
        switch classify(value) {
        case .http: break
        case .notURI:
            result.warnings.append(
                LinkWarning(
                    notURI, parameter: parameter.name,
                    message: "'\(parameter.name)' must be an absolute http(s) URL; '\(value.leadingScalars(80))' is ignored."))
        case .otherScheme(let uri):
            result.warnings.append(
                LinkWarning(
                    badScheme, parameter: parameter.name,
                    message:
                        "'\(parameter.name)' must be an http or https URL; '\(value.leadingScalars(80))' uses the \(uri.scheme): scheme and is ignored."
                ))
        }
    }
}
