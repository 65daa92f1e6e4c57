import Foundation

/// Which installations a push goes to, in store terms. Every given tag list and environment must match.
public struct AudienceSelector: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case all
        case tokens([String])
        case installationIDs([String])
        case aliases([String])
        case userIDs([String])
    }
    public var source: Source
    public var tagsAny: [String]?
    public var tagsAll: [String]?
    public var tagsNone: [String]?
    public var environment: String?

    public init(source: Source, tagsAny: [String]? = nil, tagsAll: [String]? = nil, tagsNone: [String]? = nil, environment: String? = nil) {
        self.source = source; self.tagsAny = tagsAny; self.tagsAll = tagsAll; self.tagsNone = tagsNone; self.environment = environment
    }
}

/// An installation as fan-out sees it: only what planning a delivery needs.
public struct AudienceMember: Sendable {
    public var seq: Int64
    public var id: String
    public var deviceToken: String
    public var environment: String
    public var locale: String?
    public var timeZone: String?
    public var appVersion: String?
    public var properties: String

    public init(seq: Int64, id: String, deviceToken: String, environment: String, locale: String?, timeZone: String?,
                appVersion: String?, properties: String) {
        self.seq = seq; self.id = id; self.deviceToken = deviceToken; self.environment = environment
        self.locale = locale; self.timeZone = timeZone; self.appVersion = appVersion; self.properties = properties
    }
}
