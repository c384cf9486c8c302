import Foundation
import RelinkCore

/// Reading routes.json from disk, with errors as the CLI prints them.
enum ConfigurationFile {
    static let defaultPath = "routes.json"

    static func load(_ path: String) throws(CLIError) -> RelinkConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError(message: "cannot read configuration '\(path)': \(reason(error))")
        }
        do {
            return try RelinkConfiguration(json: data)
        } catch {
            let lines = error.problems.map { "\(path): \($0)" }
            throw CLIError(message: "invalid configuration:\n" + lines.joined(separator: "\n"))
        }
    }

    /// The configuration at `path` (else $RELINK_CONFIG, else routes.json) and its project `id`.
    /// - Throws: a one-line CLI error for an unreadable or invalid file, or an unknown project.
    static func project(_ id: String, path: String?) throws(CLIError) -> (configuration: RelinkConfiguration, project: Project, path: String) {
        let path = path ?? ProcessInfo.processInfo.environment["RELINK_CONFIG"] ?? defaultPath
        let configuration = try load(path)
        guard let project = configuration.projects.first(where: { $0.id == id }) else {
            throw CLIError(message: "no project '\(id)' in \(path) (projects: \(configuration.projects.map(\.id).joined(separator: ", ")))")
        }
        return (configuration, project, path)
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        return (nsError.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription ?? nsError.localizedDescription
    }
}
