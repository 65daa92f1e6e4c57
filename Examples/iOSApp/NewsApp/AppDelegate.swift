// The app delegate of a news app in the spirit of seed 000 (WenderCast), wired to Herald.
// (Example code for an iOS app target; not built by this package.)
import HeraldClient
import SafariServices
import UIKit
import UserNotifications

@main
final class AppDelegate: UIResponder, UIApplicationDelegate, UNUserNotificationCenterDelegate {
    var window: UIWindow?
    private let newsList = NewsListViewController()

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        window = UIWindow(frame: UIScreen.main.bounds)
        window?.rootViewController = UINavigationController(rootViewController: newsList)
        window?.makeKeyAndVisible()

        // The delegate must be set before this method returns, or the tap that launched the app is lost.
        let center = UNUserNotificationCenter.current()
        center.delegate = self
        center.setNotificationCategories(NewsCategories.all)
        center.requestAuthorization(options: [.alert, .badge, .sound]) { _, _ in }
        // Every launch: the token may have changed (restore, reinstall); Herald sends only what changed.
        application.registerForRemoteNotifications()

        // Launched by tapping a push. iOS also delivers this tap to didReceive below; Herald
        // dispatches a given push to listeners once.
        if let userInfo = launchOptions?[.remoteNotification] as? [AnyHashable: Any] {
            let push = PushNotification(userInfo: userInfo)
            Task { await herald.handleOpened(push, coldLaunch: true) }
        }
        Task { await herald.addListener(newsList) }
        return true
    }

    // MARK: Token

    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        Task {
            do {
                try await herald.register(deviceToken: deviceToken)
                try await herald.setTags(["news"])
            } catch {
                // Kept and retried: sync() below sends it when the app is next active.
                print("Herald registration pending: \(error)")
            }
        }
    }

    func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error) {
        print("No device token (simulator, or App ID without push): \(error)")
    }

    // MARK: Becoming active: clear the badge, send what could not be sent offline

    func applicationDidBecomeActive(_ application: UIApplication) {
        Task {
            try? await herald.resetBadge()
            try? await herald.sync()
        }
    }

    // MARK: The three states

    /// In the foreground: tell the listeners, and still show the banner.
    nonisolated func userNotificationCenter(_ center: UNUserNotificationCenter,
                                            willPresent notification: UNNotification) async -> UNNotificationPresentationOptions {
        await herald.handleForeground(PushNotification(content: notification.request.content))
        return [.banner, .list, .sound, .badge]
    }

    /// Tapped (or one of its actions chosen): listeners route, Herald reports the opening once.
    nonisolated func userNotificationCenter(_ center: UNUserNotificationCenter,
                                            didReceive response: UNNotificationResponse) async {
        let push = PushNotification(content: response.notification.request.content)
        let action = response.actionIdentifier == UNNotificationDefaultActionIdentifier ? nil : response.actionIdentifier
        await herald.handleOpened(push, actionIdentifier: action)
    }

    /// Woken in the background by a content-available push: refresh, then report what happened.
    func application(_ application: UIApplication,
                     didReceiveRemoteNotification userInfo: [AnyHashable: Any]) async -> UIBackgroundFetchResult {
        let push = PushNotification(userInfo: userInfo)
        return await herald.handleBackground(push).uiBackgroundFetchResult
    }
}

/// The news list: a Herald listener, like the JPush wrapper's listeners in seed 004.
@MainActor
final class NewsListViewController: UITableViewController, PushListener {
    private var items: [String] = []

    func pushOpened(_ notification: PushNotification, actionIdentifier: String?, coldLaunch: Bool) async {
        add(notification)
        switch newsRouter.destination(for: notification) {
        case .article(let url) where actionIdentifier == NewsCategories.viewAction || actionIdentifier == nil:
            present(SFSafariViewController(url: url), animated: true)
        case .podcasts, .newsTab, .article, nil:
            navigationController?.popToRootViewController(animated: true)
        }
    }

    func pushReceivedInForeground(_ notification: PushNotification) async {
        add(notification)
    }

    func pushReceivedInBackground(_ notification: PushNotification) async -> BackgroundFetchResult {
        guard notification.isSilent else {
            add(notification)
            return .newData
        }
        return await PodcastStore.shared.refresh() ? .newData : .noData
    }

    private func add(_ notification: PushNotification) {
        guard let text = notification.alert?.body ?? notification.alert?.title else { return }
        items.insert(text, at: 0)
        tableView.reloadData()
    }

    override func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int { items.count }

    override func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "item") ?? UITableViewCell(style: .default, reuseIdentifier: "item")
        cell.textLabel?.text = items[indexPath.row]
        return cell
    }
}

/// Stand-in for the app's podcast feed.
actor PodcastStore {
    static let shared = PodcastStore()
    func refresh() async -> Bool { false }
}
