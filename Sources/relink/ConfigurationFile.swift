import ArgumentParser
import Foundation
import RelinkCore
import RelinkServer

/// Reading routes.json from disk, with errors as the CLI prints them.
enum ConfigurationFile {
    static let defaultPath = "routes.json"

    /// The help of every command's `--config`: each resolves it with `path(_:)`.
    static let optionHelp: ArgumentHelp = "The project configuration (default: $RELINK_CONFIG, else routes.json)."

    /// The largest configuration read: a file past it is not a routes.json (a log, a disk image) and is refused
    /// before it fills memory.
    static let maximumBytes = 16 << 20

    /// `--config` as given, else $RELINK_CONFIG, else routes.json: the same for every command.
    static func path(_ flag: String?) -> String {
        flag ?? ProcessInfo.processInfo.environment["RELINK_CONFIG"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultPath
    }

    static func load(_ path: String) throws(CLIError) -> RelinkConfiguration {
        let data = try read(path)
        // Listed with the reader's problems, so one run of `config check` names every problem it can.
        let unknown = unknownRuleFields(data).map { "\(TerminalText.escaped(path)): \($0)" }
        let configuration: RelinkConfiguration
        do {
            configuration = try RelinkConfiguration(json: data)
        } catch {
            // One line a problem: a value it quotes cannot start a line of its own (a forged "valid").
            let lines = error.problems.map { "\(TerminalText.escaped(path)): \(TerminalText.escaped($0.description))" }
            throw CLIError(message: "invalid configuration:\n" + (lines + unknown).joined(separator: "\n"))
        }
        guard unknown.isEmpty else { throw CLIError(message: "invalid configuration:\n" + unknown.joined(separator: "\n")) }
        return configuration
    }

    /// A project's `rules` with a field rules do not take, checked as the API checks a body (`RequestBodyShape`, the
    /// OpenAPI document's `LinkRules`): decoding alone would drop it, and a misspelt condition would make the rule
    /// match every click.
    /// Unknown rule keys named per project; past them a line says there are more.
    static let unknownKeysShown = 20

    static func unknownRuleFields(_ data: Data) -> [String] {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let projects = root["projects"] as? [Any] else {
            return []
        }
        return projects.enumerated().flatMap { index, project -> [String] in
            guard let rules = (project as? [String: Any])?["rules"], let json = try? JSONSerialization.data(withJSONObject: rules) else {
                return []
            }
            let unknown = RequestBodyShape.unknownFields(in: json, schema: "LinkRules", limit: Self.unknownKeysShown + 1)
            var lines = unknown.prefix(Self.unknownKeysShown).map { unknown in
                let place = "projects[\(index)].rules" + (unknown.path.isEmpty ? "" : ".\(unknown.path)")
                let name = String(String.UnicodeScalarView(unknown.name.unicodeScalars.prefix(60)))
                return "\(place).\(TerminalText.escaped(name)): unknown key (docs/rules.md lists a rule's keys)"
            }
            if unknown.count > Self.unknownKeysShown { lines.append("projects[\(index)].rules: more unknown keys than these") }
            return lines
        }
    }

    /// The configuration at `path` (else $RELINK_CONFIG, else routes.json) and its project `id`.
    /// - Throws: a one-line CLI error for an unreadable or invalid file, or an unknown project.
    static func project(_ id: String, path: String?) throws(CLIError) -> (configuration: RelinkConfiguration, project: Project, path: String) {
        let path = Self.path(path)
        let configuration = try load(path)
        guard let project = configuration.projects.first(where: { $0.id == id }) else {
            throw CLIError(message: "no project '\(id)' in \(path) (projects: \(configuration.projects.map(\.id).joined(separator: ", ")))")
        }
        return (configuration, project, path)
    }

    /// The file's bytes; a pipe (`--config <(…)`) is read like a file.
    private static func read(_ path: String) throws(CLIError) -> Data {
        func failure(_ reason: String) -> CLIError { CLIError(message: "cannot read configuration '\(path)': \(reason)") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw failure("no such file") }
        if isDirectory.boolValue { throw failure("it is a directory, not a file") }
        guard FileManager.default.isReadableFile(atPath: path), let handle = FileHandle(forReadingAtPath: path) else {
            throw failure("permission denied")
        }
        defer { try? handle.close() }
        var data = Data()
        do {
            while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                data.append(chunk)
                guard data.count <= maximumBytes else { throw failure("it is larger than \(maximumBytes >> 20) MB") }
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw failure((error as NSError).localizedDescription)
        }
        guard !data.isEmpty else { throw failure("the file is empty") }
        return data
    }
}
