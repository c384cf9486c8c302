import ArgumentParser
import Foundation
import RelinkClient
import RelinkCore

/// `relink webhooks list|add|remove|test|deliveries`: a project's webhooks, through the API.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Manage the key's project's webhooks (signed POSTs of link, click and install events).",
        subcommands: [List.self, Add.self, Remove.self, Test.self, Deliveries.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the webhooks.")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let webhooks: WebhookListResponse
            do { webhooks = try await client.client().webhooks() } catch let error as RelinkClientError { throw error.cliError }
            guard !webhooks.webhooks.isEmpty else { return Console.print("no webhooks") }
            Console.print(
                Console.table(
                    [["ID", "URL", "EVENTS", "CREATED"]] + webhooks.webhooks.map { [$0.id, $0.url, $0.events.joined(separator: ","), $0.createTime] })
            )
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Subscribe a URL; prints the signing secret once.",
            discussion: "Events: \(WebhookEvent.allCases.filter { $0 != .test }.map(\.rawValue).joined(separator: ", ")) (default: all).")

        @Argument(help: "The receiver's URL.")
        var url: String

        @Option(help: "Comma-separated events (default: all).")
        var events: String?

        @OptionGroup var client: ClientOptions

        func run() async throws {
            let names = events.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            let webhook: WebhookInfo
            do { webhook = try await client.client().addWebhook(url: url, events: names) } catch let error as RelinkClientError {
                throw error.cliError
            }
            // One line each, whatever the server's values hold: a script reads the first as the secret.
            Console.print(TerminalText.escaped(webhook.secret ?? ""))
            let events = webhook.events.joined(separator: ", ")
            Console.error(TerminalText.escaped("created webhook \(webhook.id) for \(events); the secret above is not shown again"))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a webhook and its deliveries.")
        @Argument(help: "The webhook's id.") var id: String
        @OptionGroup var client: ClientOptions

        func run() async throws {
            do { _ = try await client.client().removeWebhook(id: id) } catch let error as RelinkClientError { throw error.cliError }
            Console.print("removed webhook \(id)")
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a webhook.test event; see it with `relink webhooks deliveries`.")
        @Argument(help: "The webhook's id.") var id: String
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let delivery: String
            do { delivery = try await client.client().testWebhook(id: id) } catch let error as RelinkClientError { throw error.cliError }
            Console.print(TerminalText.escaped("queued test delivery \(delivery)"))
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a webhook's latest deliveries and their status.")
        @Argument(help: "The webhook's id.") var id: String
        @Option(help: "How many (1-500).") var limit = 20
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let answer: WebhookDeliveriesResponse
            do {
                answer = try await client.client().webhookDeliveries(id: id, limit: limit)
            } catch let error as RelinkClientError {
                throw error.cliError
            }
            guard !answer.deliveries.isEmpty else { return Console.print("no deliveries") }
            Console.print(
                Console.table(
                    [["DELIVERY", "EVENT", "STATUS", "ATTEMPTS", "LAST", "CREATED"]]
                        + answer.deliveries.map {
                            [
                                $0.id, $0.event, $0.status, String($0.attempts), $0.lastStatus.map { "HTTP \($0)" } ?? ($0.lastError ?? "-"),
                                $0.createTime,
                            ]
                        }))
        }
    }
}
