import Foundation
import Mustache
import RelinkCore
import Testing

@testable import RelinkServer

/// Every tag of every page template names a property of the page's model, so a renamed property or a typo in a
/// template fails here instead of rendering as nothing.
@Suite("Page models") struct PageModelTests {
    /// The names in `{{name}}`, `{{{name}}}`, `{{#name}}`, `{{^name}}` and `{{/name}}` tags, pragmas and `{{.}}` left out.
    static func tagNames(_ source: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            var name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            rest = rest[close.upperBound...]
            if name.hasPrefix("%") || name == "." { continue }
            name = name.trimmingCharacters(in: CharacterSet(charactersIn: "{}#^/&"))
            names.insert(name)
        }
        return names
    }

    /// The property names reachable from `value`, through nested structs, optionals and array elements; dotted
    /// paths (`assets.style`) for the nested ones as well.
    static func propertyNames(_ value: Any, prefix: String = "") -> Set<String> {
        var names: Set<String> = []
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .collection || mirror.displayStyle == .optional {
            for child in mirror.children { names.formUnion(propertyNames(child.value, prefix: prefix)) }
            return names
        }
        for child in mirror.children {
            guard let label = child.label else { continue }
            names.insert(label)
            names.insert(prefix + label)
            names.formUnion(propertyNames(child.value, prefix: prefix + label + "."))
        }
        return names
    }

    /// A model of each page with every optional set and every list non-empty, so reflection reaches every type.
    static func samples() throws -> [(source: String, model: any PageModel)] {
        let link =
            "/?link=https%3A%2F%2Fpictlink.com%2Fx&ibi=jp.furyu.pictlink.ios&isi=000000001&ifl=ftp%3A%2F%2Fx&ofl=https%3A%2F%2Fevil.test%2F&d=1"
        let project = TestSupport.configuration.projects[0]
        let prefix = project.domains[0]
        guard
            case .longLink(let resolved) = LinkRequest.resolve(
                project: project, prefix: prefix, relativePath: "/", query: Substring(link.dropFirst(2)),
                context: LinkValidationContext(linkDomains: TestSupport.configuration.allDomains, project: project))
        else { throw CancellationError() }
        guard case .debug(let report) = RedirectPlanner.plan(resolved, project: project, client: DetectedClient(platform: .desktop))
        else { throw CancellationError() }
        let debug = DebugPage(report)
        #expect(!debug.outcomes.isEmpty && !debug.parameters.isEmpty && !debug.warnings.isEmpty && !debug.violations.isEmpty)
        return [
            (
                PageTemplates.appPreview,
                AppPreviewPage(
                    appName: "a", title: "t", description: "d", imageURL: "i", openURL: "o", webURL: "w", claimURL: "c", clickID: "k",
                    beaconPath: "b")
            ),
            (PageTemplates.socialPreview, SocialPreviewPage(title: "t", description: "d", imageURL: "i", canonicalURL: "c")),
            (PageTemplates.message, MessagePage(title: "t", paragraphs: ["p"])),
            (PageTemplates.debug, debug),
        ]
    }

    /// The models that answer their tags by name (`MustacheParent`, for speed) give what reflection would: every
    /// property under its own name, nothing for any other name.
    @Test func namedChildrenAreTheProperties() throws {
        let subjects: [Any] = try Self.samples().map(\.model) + [PageAssets()]
        var checked = 0
        for subject in subjects {
            guard let parent = subject as? any MustacheParent else { continue }
            for child in Mirror(reflecting: subject).children {
                guard let label = child.label else { continue }
                let named = parent.child(named: label).flatMap(Self.unwrapped)
                #expect(String(describing: named) == String(describing: Self.unwrapped(child.value)), "\(type(of: subject)).\(label)")
                checked += 1
            }
            #expect(parent.child(named: "noSuchTag") == nil)
        }
        #expect(checked >= 20)
    }

    /// `value` without its Optional wrapping; nil for an empty Optional.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }

    /// The preview page made from pieces is the template's, byte for byte, whatever its values hold (markup,
    /// combining marks, the markers' own characters) and whichever optional parts are present.
    @Test func compiledPreviewPageIsTheTemplates() throws {
        let renderer = try PageRenderer()
        let texts = [
            "", "Spring", "<script>alert(1)</script>", "\"' & <>", "\u{1}3\u{2}", "e\u{301}\"", "\u{600}<b>", "日本語", "https://a.test/?a=1&b=2",
        ]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<400 {
            func text() -> String { texts.randomElement(using: &generator)! + (round % 3 == 0 ? texts.randomElement(using: &generator)! : "") }
            func optional() -> String? { Bool.random(using: &generator) ? nil : text() }
            let page = AppPreviewPage(
                appName: text(), title: text(), description: optional(), imageURL: optional(), openURL: text(), webURL: text(),
                claimURL: optional(), clickID: optional(), beaconPath: text())
            let template = renderer.library.render(page, withTemplate: PageRenderer.Page.appPreview.rawValue)
            #expect(renderer.appPreview.render(page) == template)
        }
    }

    @Test func everyTagIsAProperty() throws {
        let samples = try Self.samples()
        #expect(Set(samples.map { type(of: $0.model).page }) == Set(PageRenderer.Page.allCases))
        for (source, model) in samples {
            let properties = Self.propertyNames(model)
            for name in Self.tagNames(source) {
                #expect(properties.contains(name), "\(type(of: model)) has no property for {{\(name)}}")
            }
        }
    }

    @Test func theCheckNoticesAMissingProperty() {
        #expect(Self.tagNames("<p>{{#missing}}{{{assets.style}}}{{/missing}} {{.}} {{%CONTENT_TYPE:X}}</p>") == ["missing", "assets.style"])
        #expect(!Self.propertyNames(MessagePage(title: "t", paragraphs: [])).contains("missing"))
    }
}
