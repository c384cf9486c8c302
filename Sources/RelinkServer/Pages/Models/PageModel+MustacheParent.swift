import Mustache

// The pages clicks render answer their tags by name: swift-mustache otherwise reflects on the model (`Mirror`) for
// every tag of every render, which made an iPhone click's preview page cost several times a redirect.
// `PageModelTests.namedChildrenAreTheProperties` checks each answer against the property it stands for.

extension AppPreviewPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "assets": assets
        case "appName": appName
        case "title": title
        case "description": description
        case "imageURL": imageURL
        case "openURL": openURL
        case "webURL": webURL
        case "claimURL": claimURL
        case "clickID": clickID
        case "beaconPath": beaconPath
        default: nil
        }
    }
}

extension SocialPreviewPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "assets": assets
        case "title": title
        case "description": description
        case "imageURL": imageURL
        case "canonicalURL": canonicalURL
        default: nil
        }
    }
}

extension MessagePage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "assets": assets
        case "title": title
        case "paragraphs": paragraphs
        default: nil
        }
    }
}

extension PageAssets: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "style": style
        case "script": script
        default: nil
        }
    }
}
