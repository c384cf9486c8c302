import ArgumentParser
import Foundation
import RelinkClient
import RelinkCore

/// `relink deferred test --project ID`: mints a test link to the project's apps, prints it to open on a phone, and
/// watches the link's kept clicks until an install claims one, so a developer can try deferred linking with a
/// development build instead of a store install.
struct DeferredTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Mint a test link, print it to open on a phone, and watch until an install claims the click.",
        discussion: """
            Open the printed link on the test device with the app not installed (delete it first): the click goes to \
            the store and is kept. Then install and run your development build, which claims it on first launch \
            (RelinkClient.claimDeferredLink). With deferred.debug on for the project, the claim's answer also says \
            why it matched or not. Exit 0 when a click is claimed, 1 when none was within --timeout.

            Example:
              relink deferred test --project pictlink --link https://pictlink.com/invite/test
            """
    )

    @Option(help: "The project, as in routes.json.")
    var project: String

    @Option(help: ConfigurationFile.optionHelp)
    var config: String?

    @Option(help: "The link domain to mint on (default: the project's first).")
    var domain: String?

    @Option(help: "Seconds to watch before giving up.")
    var timeout: Double = 900

    @Option(help: "Seconds between two looks at the link's clicks.")
    var interval: Double = 2

    @OptionGroup var client: ClientOptions
    @OptionGroup(title: "Link parameters (default: the project's first iOS and Android apps)") var link: LinkParameterOptions

    func validate() throws {
        guard timeout >= 1, timeout <= 86_400 else { throw ValidationError("--timeout must be from 1 to 86400 seconds") }
        guard interval >= 0.05, interval <= 60 else { throw ValidationError("--interval must be from 0.05 to 60 seconds") }
    }

    /// The test link's parameters: the flags, with the project's apps and a test deep link where they say nothing.
    /// - Throws: a CLI error when there is no `--link` and the project has no route to take a deep link from.
    static func parameters(_ flags: LinkParameters, project: Project) throws(CLIError) -> LinkParameters {
        var parameters = flags
        if parameters.link == nil {
            // A deep link the app already handles: its first route's, with every placeholder filled in.
            guard let route = project.routes.first else {
                throw CLIError.usage("pass --link: the deep link the app should get (project \(project.id) has no route to take one from)")
            }
            parameters.link = route.link.replacing(/\{[^}]*\}/, with: "relink-deferred-test")
        }
        if parameters.ibi == nil, let app = project.ios.first {
            parameters.ibi = app.bundleId
            if parameters.isi == nil { parameters.isi = app.appStoreId }
        }
        if parameters.apn == nil { parameters.apn = project.android.first?.packageName }
        return parameters
    }

    func run() async throws {
        let (_, project, path) = try ConfigurationFile.project(self.project, path: config)
        let prefix: DomainURIPrefix
        if let domain {
            func trimmed(_ text: String) -> Substring { text.hasSuffix("/") ? text.dropLast() : Substring(text) }
            guard let known = project.domains.first(where: { trimmed($0.description) == trimmed(domain) }) else {
                throw CLIError.usage("--domain must be one of project \(project.id)'s: \(project.domains.map(\.description).joined(separator: ", "))")
            }
            prefix = known
        } else {
            guard let first = project.domains.first else { throw CLIError(message: "project \(project.id) has no domain") }
            prefix = first
        }
        let parameters = try Self.parameters(link.parameters, project: project)
        guard parameters.ibi != nil || parameters.apn != nil else {
            throw CLIError(message: "project \(project.id) has no iOS or Android app, so no click would wait for an install: add one to \(path)")
        }
        let api = try client.client()
        let minted: CreateShortLinkResponse
        do {
            minted = try await api.createShortLink(
                CreateShortLinkRequest(
                    dynamicLinkInfo: DynamicLinkInfo(domainUriPrefix: prefix.description, parameters: parameters),
                    suffix: .init(option: SuffixOption.unguessable.rawValue)))
        } catch {
            throw error.cliError
        }
        // Minting is idempotent: a run with the same parameters gets the same link back, with the clicks and claims
        // of earlier runs. Those are the baseline, read before the link is shown: only clicks made from then on count
        // (read after, a click made meanwhile was taken for an earlier one and never reported).
        var watch = DeferredTestWatch()
        let earlier: Int
        do {
            earlier = watch.ignore(try await api.deferredClicks(shortLink: minted.shortLink, limit: DeferredTestWatch.pageSize))
        } catch {
            throw error.cliError
        }
        for warning in minted.warning {
            Console.error("warning: \(TerminalText.escaped(warning.warningCode)): \(TerminalText.escaped(warning.warningMessage))")
        }
        Console.print("Open this link on the test device, with the app deleted:")
        Console.print("  \(TerminalText.escaped(minted.shortLink))")
        Console.print(
            "Then install and run your development build: its first launch claims the click. Watching for \(Int(timeout)) s (Ctrl-C stops).")
        if !project.deferred.debug {
            Console.print(
                "(Set \"deferred\": {\"debug\": true} for \(project.id) in \(path) and restart the server to get the claim's evidence in the app's answer.)"
            )
        }
        if earlier > 0 { Console.print("(\(earlier) earlier click(s) on this link are ignored: only new ones count.)") }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            do {
                for line in watch.update(try await api.deferredClicks(shortLink: minted.shortLink, limit: DeferredTestWatch.pageSize)) {
                    Console.print(line)
                }
            } catch {
                throw error.cliError
            }
            if watch.claimed { return }
            try await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        }
        throw CLIError(message: watch.timeoutMessage(seconds: Int(timeout)))
    }
}

/// What `relink deferred test` prints as the test link's clicks come and get claimed: a pure state machine fed
/// with each look at the clicks, so it is tested without a server.
struct DeferredTestWatch {
    /// The newest clicks looked at each time.
    static let pageSize = 100

    private var seen: Set<String> = []
    private var ignored: Set<String> = []
    private var claims: Set<String> = []
    /// Whether an install has claimed one of the link's new clicks.
    private(set) var claimed = false

    /// A click as the watch tells it from the others: its one-way handle (its signals can change: the preview
    /// page's beacon adds a screen after the click).
    private static func key(_ click: DeferredClicksResponse.Click) -> String { click.ref }

    /// Takes the clicks there before the test as the baseline, never reported, claimed or not.
    /// - Returns: how many there were.
    mutating func ignore(_ response: DeferredClicksResponse) -> Int {
        for click in response.clicks { ignored.insert(Self.key(click)) }
        return response.clicks.count
    }

    /// The lines to print for this look at the clicks (oldest first): new clicks, then new claims.
    mutating func update(_ response: DeferredClicksResponse) -> [String] {
        var lines: [String] = []
        for click in response.clicks.reversed() {
            let key = Self.key(click)
            guard !ignored.contains(key) else { continue }
            if seen.insert(key).inserted {
                var signals = [click.device, click.osVersion].compactMap { $0 }
                if !click.languages.isEmpty { signals.append(click.languages.joined(separator: ",")) }
                if let screen = click.screen { signals.append("screen \(screen)") }
                if let zone = click.timeZone { signals.append(zone) }
                lines.append("\(click.clickedAt)  click from \(click.platform.rawValue) (\(signals.joined(separator: ", "))), kept for the install")
            }
            if let at = click.claimedAt, let confidence = click.confidence, claims.insert("\(key)|\(confidence.rawValue)").inserted {
                let delay = APITime.parse(at).flatMap { end in APITime.parse(click.clickedAt).map { Int(end.timeIntervalSince($0)) } }
                var line = "\(at)  claimed as \(confidence.rawValue)" + (delay.map { ", \($0) s after the click" } ?? "")
                switch confidence {
                case .unique: line += ": the app passed the click's own token (clipboard link or install referrer)."
                case .default: line += ": matched on the device's signals, sure."
                case .weak: line += ": a guess; a surer claim may still take it (apps should not trust WEAK with anything personal)."
                }
                lines.append(line)
                claimed = true
            }
        }
        return lines
    }

    /// Why nothing was claimed, as the command's last line.
    func timeoutMessage(seconds: Int) -> String {
        seen.isEmpty
            ? "no click within \(seconds) s: open the link on an iPhone, iPad or Android phone (desktop browsers and link previews are not kept)"
            : "the click was kept but no install claimed it within \(seconds) s: check that the app calls claimDeferredLink on first launch "
                + "with this project's bundle ID or package name, from the same network; with deferred.debug on, its answer says why nothing matched"
    }
}
