import ArgumentParser
import Foundation
import RelinkStore
import Testing

@testable import relink

@Suite("Store options")
struct StoreOptionsTests {
    static func options(_ arguments: [String]) throws -> StoreOptions {
        try StoreOptions.parse(arguments)
    }

    @Test func chooseTheStore() throws {
        guard case .sqlite(let path) = try Self.options(["--db", "x.sqlite"]).choice() else {
            Issue.record("not SQLite")
            return
        }
        #expect(path == "x.sqlite")
        guard case .postgres(let url) = try Self.options(["--database", "postgres://u@h/db"]).choice() else {
            Issue.record("not PostgreSQL")
            return
        }
        #expect(url == "postgres://u@h/db")
        #expect(try Self.options(["--database", "postgres://u:pw@h/db"]).path == "postgres://u:***@h:5432/db")
    }

    @Test func bothFlagsAreAUsageError() throws {
        #expect(throws: CLIError.self) { try Self.options(["--db", "x.sqlite", "--database", "postgres://u@h/db"]).choice() }
        do {
            _ = try Self.options(["--db", "x.sqlite", "--database", "postgres://u@h/db"]).choice()
        } catch let error as CLIError {
            #expect(error.exitCode == CLIError.usageExitCode)
        }
    }

    @Test func badOrUnreachableDatabasesAreOneLineErrors() async throws {
        for (url, reason) in [
            ("mysql://u@h/db", "invalid database URL: the scheme must be postgres:// or postgresql://"),
            ("postgres://u:pw@127.0.0.1:1/db?sslmode=disable", "cannot connect to postgres://u:***@127.0.0.1:1/db"),
        ] {
            await #expect {
                _ = try await Self.options(["--database", url]).open(creating: true)
            } throws: { error in
                guard let error = error as? CLIError else { return false }
                return error.message.hasPrefix(reason) && !error.message.contains("\n") && !error.message.contains(":pw@")
                    && error.exitCode == 1
            }
        }
    }
}
