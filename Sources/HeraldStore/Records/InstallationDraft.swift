import Foundation

/// A create-or-update request for an installation: nil fields are left as they are.
public struct InstallationDraft: Sendable {
    public var installationID: String?
    public var deviceToken: String?
    public var environment: String?
    public var topic: String??
    public var tags: [String]?
    public var alias: String??
    public var userID: String??
    public var locale: String??
    public var timeZone: String??
    public var badge: Int?
    public var appVersion: String??
    public var osVersion: String??
    public var deviceModel: String??
    public var properties: String?
    /// Import only: the installation was inactive where it was exported and stays so, with the reason and time
    /// it carried, instead of being reactivated by its token as a registration would be.
    public var inactive: Inactive?
    /// Import only: when the installation was created where it was exported. A draft that creates an
    /// installation gives it this creation time instead of now; an update leaves the creation time alone.
    public var createdAt: Date?

    public struct Inactive: Sendable, Equatable {
        public var reason: String?
        public var at: Date?

        public init(reason: String?, at: Date?) {
            self.reason = reason
            self.at = at
        }
    }

    public init(installationID: String? = nil, deviceToken: String? = nil, environment: String? = nil) {
        self.installationID = installationID
        self.deviceToken = deviceToken
        self.environment = environment
    }
}

/// How `upsertInstallation` finds the row to update.
public enum InstallationMatch: Sendable {
    /// By the client's installation id, falling back to the device token (re-installs keep the token).
    case installationIDOrToken
    /// Only the installation with this server id or installation id; nil when none.
    case existing(String)
}

extension Array where Element == InstallationDraft {
    /// For each draft of an import batch, whether it is the batch's first with its installation id and the
    /// first with its token: only such a draft can create an installation (if the store holds neither); a
    /// later one updates what the first wrote. Both stores' imports split a batch by it, computed ahead of
    /// the transaction (`prepareImport`).
    public var firstOfBatch: [Bool] {
        var seenIDs = Set<String>(), seenTokens = Set<String>()
        return map { draft in
            let firstID = draft.installationID.map { seenIDs.insert($0).inserted } ?? true
            let firstToken = draft.deviceToken.map { seenTokens.insert($0).inserted } ?? true
            return firstID && firstToken
        }
    }
}
