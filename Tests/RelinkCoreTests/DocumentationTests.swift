import Foundation
import Testing

/// The repository stands alone: no doc, source or test refers to a file outside it, and every relative link in the
/// docs leads to a file of the repository.
@Suite("Documentation")
struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../..").standardizedFileURL

    /// Every file below the folders a reader or a build reads, with the extensions that hold prose or code.
    static func files(in folders: [String], extensions: Set<String>) -> [URL] {
        var found: [URL] = []
        for folder in folders {
            let url = root.appending(path: folder)
            guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else {
                if extensions.contains(url.pathExtension) { found.append(url) }
                continue
            }
            for case let file as URL in walker where extensions.contains(file.pathExtension) {
                if !file.path.contains("/.build") && !file.path.contains("/build/") { found.append(file) }
            }
        }
        return found
    }

    @Test func nothingRefersToFilesOutsideTheRepository() throws {
        let files = Self.files(
            in: ["docs", "README.md", "Sources", "Tests", "clients", "Scripts", "Benchmarks", ".ci"],
            extensions: ["md", "swift", "java", "mjs", "ts", "sh", "py", "json", "lua"])
        #expect(files.count > 100)
        // Spelled apart so that this file does not find itself.
        let outside = ["../" + "shared", "fdl-" + "compat", "shared/" + "reference"]
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for needle in outside where text.contains(needle) {
                Issue.record("\(file.path.dropFirst(Self.root.path.count)) mentions \(needle)")
            }
        }
    }

    @Test func relativeLinksInTheDocsLeadToFilesOfTheRepository() throws {
        let pages = Self.files(in: ["docs", "README.md", "clients"], extensions: ["md"])
        #expect(pages.count > 10)
        let link = /\]\(([^)\s#]+)(#[^)\s]*)?\)/
        for page in pages {
            let text = try String(contentsOf: page, encoding: .utf8)
            for match in text.matches(of: link) {
                let target = String(match.1)
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                let resolved = page.deletingLastPathComponent().appending(path: target).standardizedFileURL
                #expect(resolved.path.hasPrefix(Self.root.path), "\(page.lastPathComponent): \(target) leaves the repository")
                #expect(FileManager.default.fileExists(atPath: resolved.path), "\(page.lastPathComponent): \(target) does not exist")
            }
        }
    }
}
