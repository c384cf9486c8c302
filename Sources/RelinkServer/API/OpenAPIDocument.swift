/// The OpenAPI 3.1 document of Relink's REST API. Its one source is `openapi.json` beside this file, embedded at
/// build time as `json` (the EmbedOpenAPIDocument plugin), so the binary serves it byte for byte. Tests check that
/// every route under `/v1` appears in it, that it is OpenAPI 3.1 JSON, and CI runs schemathesis against it
/// (`Scripts/check-contract.sh`).
enum OpenAPIDocument {}
