import ArgumentParser
import Foundation
import RelinkCore
import RelinkServer
import RelinkTools

/// `relink import firebase EXPORT.csv --project ID`: FDL's export into the store, every short link under its exact
/// code (see FirebaseImporter).
struct ImportFirebaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "firebase",
        abstract: "Import a Firebase Dynamic Links export (CSV, one file per link domain), keeping every short link's code.",
        discussion: """
            Every row is checked first; nothing is written when a row is invalid or conflicts with a stored link, \
            unless --continue-on-error (import what is valid) or --update (overwrite changed links). Running the same \
            import again changes nothing, and resumes one that stopped. Exit 0 when every row is in, 1 otherwise.

            Links on Google's domains (*.page.link, app.goo.gl) cannot move; --rehome imports them onto one of the \
            project's domains, each with its code, and prints the old -> new list (or writes it to --rehome-map as \
            CSV old,new) to send the new links where the old ones were.

            Examples:
              relink import firebase go.pictlink.com.csv --project pictlink --dry-run
              relink import firebase pictlink.page.link.csv --project pictlink --rehome https://go.pictlink.com \\
                --rehome-map moved.csv
            """
    )

    @Argument(help: "The CSV file from Firebase's export (Google Takeout).")
    var file: String

    @Option(help: "The project the links belong to, as in the configuration.")
    var project: String

    @Option(help: "Only rows on this domain URI prefix.")
    var domain: String?

    @Option(help: ConfigurationFile.optionHelp)
    var config: String?

    @Option(help: "Import rows on a Google domain (*.page.link, app.goo.gl) onto this domain of the project, same codes.")
    var rehome: String?

    @Option(help: "With --rehome: write the old -> new list to this new file (CSV old,new) instead of printing it.")
    var rehomeMap: String?

    @Flag(help: "Check and count only; write nothing.")
    var dryRun = false

    @Flag(help: "Overwrite stored links whose row changed.")
    var update = false

    @Flag(help: "Import the valid rows even when others are invalid or in conflict.")
    var continueOnError = false

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let (configuration, projectConfiguration, _) = try ConfigurationFile.project(project, path: config)
        var options = FirebaseImporter.Options(projectId: project)
        if let domain {
            guard let prefix = try? DomainURIPrefix(domain) else {
                throw CLIError.usage("--domain must be a domain URI prefix such as https://go.example.com")
            }
            options.domain = prefix
        }
        if let rehome {
            guard let prefix = try? DomainURIPrefix(rehome), projectConfiguration.domains.contains(prefix) else {
                throw CLIError.usage(
                    "--rehome must be one of project \(project)'s domains (\(projectConfiguration.domains.map(\.description).joined(separator: ", ")))"
                )
            }
            options.rehome = prefix
        } else if rehomeMap != nil {
            throw CLIError.usage("--rehome-map goes with --rehome")
        }
        options.dryRun = dryRun
        options.update = update
        options.continueOnError = continueOnError
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CLIError(message: "'\(file)' is a directory: name the export's CSV file")
        }
        guard FileManager.default.isReadableFile(atPath: file) else { throw CLIError(message: "cannot read '\(file)'") }
        // Read twice (checks, then writes): a pipe would be empty the second time.
        var status = stat()
        guard stat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw CLIError(message: "'\(file)' is not a regular file: the import reads it twice (checks, then writes); save the export to a file")
        }
        // Before the database is made: the map's file is created (exclusively) only once the import starts.
        if let rehomeMap, FileManager.default.fileExists(atPath: rehomeMap) { throw RehomeMap.exists(rehomeMap) }
        let database = try await store.open(creating: true)
        defer { StoreOptions.close(database) }
        let importer = FirebaseImporter(configuration: configuration, store: database)
        let progress = Progress(terminal: isatty(STDERR_FILENO) == 1)
        let map = try rehomeMap.map { try RehomeMap(path: $0) }
        let summary: FirebaseImporter.Summary
        do {
            summary = try await importer.run(
                options, rows: { try Self.rows(of: file) }, progress: progress.show,
                rehomed: { old, new in
                    if let map { try map.write(old, new) } else { Console.print("\(old) -> \(new)") }
                })
            try map?.close()
        } catch let error as CLIError {
            throw error
        } catch let malformed as FirebaseImporter.MalformedRow {
            // Only the first row, whose columns the rest are read by, stops the import.
            throw CLIError(message: "'\(file)' cannot be imported: its first row is \(malformed.reason)")
        } catch {
            throw CLIError(message: "the import stopped: \(error)")
        }
        progress.finish()
        for line in Self.report(summary, options: options) { Console.print(line) }
        // A lost or emptied export must not look like an import that went well.
        if summary.rows == 0 { throw CLIError(message: "'\(TerminalText.escaped(file))' has no rows: nothing was imported (is it the export?)") }
        if summary.invalid > 0 || summary.conflicts > 0 { throw CLIError(message: Self.verdict(summary, options)) }
        if summary.notWritten > 0 {
            throw CLIError(
                message: "\(summary.notWritten) row(s) checked in the first pass were not written: the file or the project's links "
                    + "changed during the import; run it again (rows already in count as unchanged)")
        }
    }

    /// The file's rows, streamed and read strictly (`CSVRowReader`): a row with malformed quoting is an invalid row,
    /// with its line; bytes that are not UTF-8 stop the import, with the line they are on.
    static func rows(of file: String) throws -> FirebaseImporter.NextRow {
        let reader: CSVRowReader
        do {
            reader = try CSVRowReader(path: file)
        } catch {
            throw CLIError(message: "cannot read '\(file)'")
        }
        return {
            let row: CSVRowReader.Row?
            do {
                row = try reader.next()
            } catch {
                throw CLIError(
                    message: "'\(file)' could not be read past \(error); fix the file and run the import again (rows already in count as unchanged)")
            }
            switch row {
            case nil: return nil
            case .fields(let fields)?: return fields
            case .malformed(let line, let reason)?: throw FirebaseImporter.MalformedRow(reason: "not valid CSV (line \(line)): \(reason)")
            }
        }
    }

    static func report(_ summary: FirebaseImporter.Summary, options: FirebaseImporter.Options) -> [String] {
        var lines: [String] = []
        if let layout = summary.layout {
            if layout.byPosition, layout.hasHeader {
                lines.append("columns: the header was not understood; read in the documented order")
            }
            for (column, name) in layout.unknownColumns where !layout.byPosition {
                lines.append("column \(column) ('\(TerminalText.escaped(name.leadingScalars(40)))') is not one of the export's and is ignored")
            }
        }
        let imported = options.dryRun || !summary.written ? "to import" : "imported"
        let newRows = summary.rows - summary.unchanged - summary.conflicts - summary.invalid
        lines.append(
            "\(summary.rows) rows: \(summary.written ? summary.imported : newRows) \(imported) (\(summary.archived) archived), "
                + "\(summary.unchanged) unchanged, \(summary.updated) updated, \(summary.conflicts) conflicts, \(summary.invalid) invalid")
        if let rehome = options.rehome {
            // Already there when every valid row was: an import run again.
            let there = summary.written || (!options.dryRun && newRows == 0 && summary.conflicts == 0)
            lines.append("\(summary.rehomed) link(s) of a Google domain \(there ? "moved" : "to move") to \(rehome), each with its code")
        }
        for problem in summary.problems {
            // One line a problem: the short link and the reason quote the file's values.
            let shortLink = problem.shortLink.map { " (\(TerminalText.escaped($0.leadingScalars(120))))" } ?? ""
            lines.append("  row \(problem.row)\(shortLink): \(TerminalText.escaped(problem.reason))")
        }
        let shown = summary.problems.count
        if shown < summary.invalid + summary.conflicts { lines.append("  … and \(summary.invalid + summary.conflicts - shown) more") }
        return lines
    }

    static func verdict(_ summary: FirebaseImporter.Summary, _ options: FirebaseImporter.Options) -> String {
        if options.dryRun { return "dry run: \(summary.invalid) invalid row(s) and \(summary.conflicts) conflict(s)" }
        if !summary.written, !options.continueOnError {
            return "nothing was imported: fix the rows above, or pass --continue-on-error to import the valid ones"
                + (summary.conflicts > summary.duplicates ? " (or --update to overwrite the conflicting links)" : "")
        }
        return "imported what was valid; \(summary.invalid) invalid row(s) and \(summary.conflicts) conflict(s) were not"
    }

    /// `--rehome-map`: the old -> new list as CSV (`old,new`, a header row first), written as the rows are checked.
    final class RehomeMap {
        let path: String
        let handle: FileHandle

        /// Creates the file, which must not exist yet: a slip of the name (the export's own) must never empty a file.
        init(path: String) throws {
            self.path = path
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw errno == EEXIST ? Self.exists(path) : CLIError(message: "cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            self.handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try write("old", "new")
        }

        static func exists(_ path: String) -> CLIError {
            CLIError(message: "'\(path)' exists: --rehome-map writes a new file; remove it or name another")
        }

        func write(_ old: String, _ new: String) throws {
            do {
                try handle.write(contentsOf: Data("\(Self.field(old)),\(Self.field(new))\n".utf8))
            } catch {
                throw CLIError(message: "cannot write '\(path)': \(error.localizedDescription)")
            }
        }

        func close() throws {
            do { try handle.close() } catch { throw CLIError(message: "cannot write '\(path)': \(error.localizedDescription)") }
        }

        /// A URL as one CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
        static func field(_ text: String) -> String {
            // By byte: a `,` or `"` followed by a combining mark is one Character that equals neither, yet a CSV
            // reader splits or quotes on it all the same.
            let special: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\r")]
            guard text.utf8.contains(where: special.contains) else { return text }
            var quoted = [UInt8(ascii: "\"")]
            for byte in text.utf8 {
                if byte == UInt8(ascii: "\"") { quoted.append(byte) }
                quoted.append(byte)
            }
            quoted.append(UInt8(ascii: "\""))
            return String(decoding: quoted, as: UTF8.self)
        }
    }

    /// A one-line progress bar on a terminal (rows, not a percentage: the file's row count is not known in advance).
    final class Progress: @unchecked Sendable {
        let terminal: Bool
        private var shown = false

        init(terminal: Bool) { self.terminal = terminal }

        func show(pass: Int, rows: Int) {
            guard terminal else { return }
            FileHandle.standardError.write(Data("\r\(pass == 1 ? "checking" : "writing ")  \(rows) rows".utf8))
            shown = true
        }

        func finish() {
            if shown { FileHandle.standardError.write(Data("\n".utf8)) }
        }
    }
}
