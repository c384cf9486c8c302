/// The sign-in form; its CSRF token is also in a short-lived cookie (a login form has no session yet).
struct ConsoleSignInPage: ConsolePageModel {
    static let page = ConsoleRenderer.Page.signIn
    let assets = ConsoleAssets()
    let title = "Sign in"
    let user: ConsolePageUser? = nil
    var notices: [String] = []
    var csrf: String
    var error: String?
    var qrMissing: String?
}
