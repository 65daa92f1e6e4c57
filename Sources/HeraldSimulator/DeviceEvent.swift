import Foundation

/// What a device stream (`GET /devices/{id}/stream`, server-sent events) reports.
public enum DeviceEvent: Sendable, Equatable {
    case notification(SimulatedNotification)
    case opened(OpenReport)
    case presence(online: Bool)

    var name: String {
        switch self {
        case .notification: "notification"
        case .opened: "opened"
        case .presence: "presence"
        }
    }

    var json: [String: Any] {
        switch self {
        case let .notification(n): InspectionJSON.notification(n)
        case let .opened(o): InspectionJSON.open(o)
        case let .presence(online): ["online": online]
        }
    }

    /// One SSE frame: `event: <name>\ndata: <json>\n\n`.
    var serverSentEvent: [UInt8] {
        Array("event: \(name)\ndata: \(InspectionJSON.text(json))\n\n".utf8)
    }
}
