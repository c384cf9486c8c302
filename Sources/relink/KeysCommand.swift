import ArgumentParser
import Foundation
import RelinkCore
import RelinkServer
import RelinkStore

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Create, list and revoke API keys (stored as hashes in the database).",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a key for a project and print it, once: only its hash is kept.")

        @Option(help: "The project the key belongs to (an id in the configuration).")
        var project: String

        @Option(help: "A name to recognise the key by in `relink keys list`.")
        var name: String?

        @Flag(help: "A console token: signs in to the web console (/console) for the project, refused by the API.")
        var console = false

        @Option(help: ConfigurationFile.optionHelp)
        var config: String?

        @OptionGroup var store: StoreOptions

        func run() async throws {
            _ = try ConfigurationFile.project(project, path: config)
            let database = try await store.open(creating: true)
            defer { StoreOptions.close(database) }
            let (key, record) = try await APIKeys.create(projectId: project, name: name, scope: console ? .console : .api, in: database)
            Console.print(key)
            Console.error(
                "created \(console ? "console token" : "key") \(record.id) (\(record.keyPrefix)…) for project \(project) in \(store.path); it is not shown again"
            )
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys: id, project, name, prefix, use (api or console), created, revoked.")

        @Option(help: "Only this project's keys.")
        var project: String?

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let database = try await store.open(creating: false)
            defer { StoreOptions.close(database) }
            let keys = try await database.apiKeys(projectId: project)
            guard !keys.isEmpty else {
                Console.error("no keys\(project.map { " for project \($0)" } ?? "") in \(store.path)")
                return
            }
            var rows = [["ID", "PROJECT", "NAME", "PREFIX", "USE", "CREATED", "REVOKED"]]
            rows += keys.map { key in
                [
                    String(key.id), key.projectId, key.name ?? "-", key.keyPrefix + "…", key.scope == .api ? "api" : "console",
                    APITime.format(key.createdAt),
                    key.revokedAt.map(APITime.format) ?? "-",
                ]
            }
            Console.print(Console.table(rows))
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key: the API refuses it from the next request, and its console sessions end.")

        @Argument(help: "The key's id, from `relink keys list`.")
        var id: Int64

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let database = try await store.open(creating: false)
            defer { StoreOptions.close(database) }
            guard let key = try await database.revokeAPIKey(id: id) else {
                throw CLIError(message: "no key with id \(id) in \(store.path)")
            }
            Console.print("revoked key \(key.id) (\(key.keyPrefix)…) of project \(key.projectId)")
        }
    }
}
