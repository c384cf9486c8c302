import Testing

@testable import RelinkCore

@Suite("Path templates")
struct PathTemplateTests {
    @Test func matchesSegments() throws {
        let template = try PathTemplate("/p/{id}/reviews/{review}")
        #expect(template.variables == ["id", "review"])
        #expect(template.match("/p/42/reviews/7") == ["id": "42", "review": "7"])
        #expect(template.match("/p/42%20x/reviews/7")?["id"] == "42%20x")
        #expect(template.match("/p/42/reviews") == nil)
        #expect(template.match("/p/42/reviews/7/x") == nil)
        #expect(template.match("/p//reviews/7") == nil)
        #expect(template.match("/q/42/reviews/7") == nil)
        #expect(template.match("/p/42/reviews/7/") == nil)
        #expect(template.description == "/p/{id}/reviews/{review}")
    }

    @Test func literalRoutes() throws {
        let template = try PathTemplate("/spring")
        #expect(template.match("/spring") == [:])
        #expect(template.match("/Spring") == nil)
        #expect(template.match("/spring/x") == nil)
    }

    /// Relink's own paths are reserved by whole first segment: a route that only begins with the same letters is
    /// the team's own.
    @Test func reservedPathsAreWholeSegments() throws {
        for reserved in ["/healthz", "/metrics/x", "/console", "/v1/{id}", "/_/beacon", "/.well-known/x", "/openapi"] {
            #expect(throws: ConfigurationProblem.Message.self, "\(reserved)") { try PathTemplate(reserved) }
        }
        for own in ["/healthzone/{id}", "/metricsboard", "/v10/{id}", "/consoles"] {
            #expect(throws: Never.self, "\(own)") { try PathTemplate(own) }
        }
    }
}
