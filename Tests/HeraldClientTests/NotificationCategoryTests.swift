import Testing
@testable import HeraldClient

@Suite struct NotificationCategoryTests {
    // Seed 000: the news app's NEWS_CATEGORY with a "View" action that opens the app.
    let categories: Set<NotificationCategory> = [
        NotificationCategory(identifier: "NEWS_CATEGORY", actions: [
            NotificationAction(identifier: "VIEW_IDENTIFIER", title: "View", options: .foreground),
        ]),
        NotificationCategory(identifier: "CHAT", actions: [
            NotificationAction(identifier: "REPLY", title: "Reply",
                               textInput: .init(buttonTitle: "Send", placeholder: "Message")),
            NotificationAction(identifier: "BLOCK", title: "Block", options: [.destructive, .authenticationRequired]),
        ], options: .customDismissAction),
    ]

    @Test func aPushSelectsItsCategoryAndTheResponseItsAction() {
        let push = PushNotification(userInfo: ["aps": ["alert": "Breaking News!", "category": "NEWS_CATEGORY"]])
        let category = categories.category(for: push)
        #expect(category?.identifier == "NEWS_CATEGORY")
        let view = category?.action(withIdentifier: "VIEW_IDENTIFIER")
        #expect(view?.title == "View")
        #expect(view?.options == .foreground)
        #expect(category?.action(withIdentifier: "com.apple.UNNotificationDefaultActionIdentifier") == nil)
    }

    @Test func anUnknownOrMissingCategorySelectsNothing() {
        #expect(categories.category(for: PushNotification(userInfo: ["aps": ["category": "CATEGORY_ID"]])) == nil)
        #expect(categories.category(for: PushNotification(userInfo: ["aps": ["alert": "x"]])) == nil)
    }

    @Test func actionsKeepTheirOptionsAndTextInput() throws {
        let chat = try #require(categories.first { $0.identifier == "CHAT" })
        #expect(chat.options.contains(.customDismissAction))
        #expect(chat.actions.map(\.identifier) == ["REPLY", "BLOCK"])
        #expect(chat.action(withIdentifier: "REPLY")?.textInput?.buttonTitle == "Send")
        let block = try #require(chat.action(withIdentifier: "BLOCK"))
        #expect(block.options.contains(.destructive) && block.options.contains(.authenticationRequired))
        #expect(!block.options.contains(.foreground))
    }
}
