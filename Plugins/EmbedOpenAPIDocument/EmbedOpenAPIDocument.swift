import PackagePlugin

/// Turns the target's `API/openapi.json` into a Swift source declaring `OpenAPIDocument.json`, so the one binary
/// serves the file byte for byte with nothing beside it (a `Bundle.module` resource would have to be shipped with it).
@main
struct EmbedOpenAPIDocument: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let document = target.directoryURL.appending(path: "API/openapi.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument+Embedded.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(document.lastPathComponent) in \(target.name)",
                executable: try context.tool(named: "RelinkEmbed").url,
                arguments: [document.path(), output.path(), "OpenAPIDocument", "json"],
                inputFiles: [document], outputFiles: [output])
        ]
    }
}
