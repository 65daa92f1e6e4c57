// The app's one HeraldClient, its notification categories and its push router.
// (Example code for an iOS app target that links the HeraldClient library; not built by this package.)
import Foundation
import HeraldClient

/// One client for the whole app. An actor: use it from any thread.
let herald: HeraldClient = {
    do {
        return try HeraldClient(configuration: .init(
            serverURL: URL(string: "https://push.example.com")!,
            clientKey: "ck_live_replace_me",
            // From the embedded provisioning profile: sandbox for development builds, production for
            // TestFlight, ad hoc and App Store builds. No #if DEBUG to forget.
            environment: .detect(),
            topic: Bundle.main.bundleIdentifier,
            storage: UserDefaultsStorage()))
    } catch {
        fatalError("Herald storage unavailable: \(error)")
    }
}()

/// Seed 000's interactive notification: a news item with a "View" button that opens the app.
enum NewsCategories {
    static let viewAction = "VIEW_IDENTIFIER"

    static let all: [NotificationCategory] = [
        NotificationCategory(identifier: "NEWS_CATEGORY", actions: [
            NotificationAction(identifier: viewAction, title: "View", options: .foreground),
        ]),
    ]
}

/// Where a push takes the user.
enum NewsDestination: Equatable, Sendable {
    case article(URL)
    case newsTab
    case podcasts
}

/// Custom data → destination. The news sender puts `link_url` inside `aps` (seed 000); a LeanCloud-era
/// sender used `action.type` (seed 003); the course app used `data.systype` + `data.url` (seed 001).
let newsRouter: PushRouter<NewsDestination> = {
    var router = PushRouter<NewsDestination>()
    router.whenPresent("link_url") { value, _ in value.stringValue.flatMap(URL.init(string:)).map(NewsDestination.article) }
    router.when("data", "systype", equals: 5) { push in
        push.value(at: "data", "url")?.stringValue.flatMap(URL.init(string:)).map(NewsDestination.article)
    }
    router.when("action", "type", equals: 4) { _ in .newsTab }
    router.add { push in push.category == "NEWS_CATEGORY" ? .newsTab : nil }
    return router
}()
