import Foundation
import HeraldJSON

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

    var json: JSONValue {
        switch self {
        case let .notification(n): InspectionJSON.notification(n)
        case let .opened(o): InspectionJSON.open(o)
        case let .presence(online): ["online": .bool(online)]
        }
    }

    /// One SSE frame: `event: <name>\ndata: <json>\n\n`.
    var serverSentEvent: [UInt8] {
        var frame = Array("event: \(name)\ndata: ".utf8)
        json.writeJSON(into: &frame)
        frame += [UInt8(ascii: "\n"), UInt8(ascii: "\n")]
        return frame
    }
}
