import Hummingbird
import Logging
import NIOCore
import RelinkCore

/// Builds the Relink service: the same application `relink serve` runs and the tests drive.
public func buildApplication(configuration: ServerConfiguration) throws -> some ApplicationProtocol {
    let logger = {
        var logger = Logger(label: "relink")
        logger.logLevel = configuration.logLevel
        return logger
    }()
    let router = Router(context: RelinkRequestContext.self, options: [.autoGenerateHeadEndpoints])
    let pages = try PageRenderer()
    HealthController(projects: configuration.relink.projects.count).addRoutes(to: router)
    AssociationController(configuration: configuration.relink, pages: pages, trustForwardedHeaders: configuration.trustForwardedHeaders)
        .addRoutes(to: router)
    // Last: everything else on a link domain is a click.
    RedirectController(configuration: configuration.relink, pages: pages, trustForwardedHeaders: configuration.trustForwardedHeaders)
        .addRoutes(to: router)

    let summary = configuration.relink.projects.map { project in
        "\(project.id) (\(project.domains.map(\.description).joined(separator: ", ")))"
    }.joined(separator: "; ")
    return Application(
        router: router,
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port), serverName: "Relink"),
        onServerRunning: { channel in
            let address = channel.localAddress.map { "\($0.ipAddress ?? configuration.host):\($0.port ?? configuration.port)" }
            logger.info("Relink listening on http://\(address ?? "\(configuration.host):\(configuration.port)"); serving \(summary)")
        },
        logger: logger
    )
}
