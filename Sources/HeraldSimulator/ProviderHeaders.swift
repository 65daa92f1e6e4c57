import HeraldHTTP

/// The request headers APNs reads, taken in one pass over the fields (the hot path used to scan the
/// list once per header). Also notes a repeated header and keeps every `apns-*` header for inspection.
struct ProviderHeaders {
    var apnsID: String?
    var expiration: String?
    var priority: String?
    var topic: String?
    var pushType: String?
    var collapseID: String?
    var authorization: String?
    /// A header APNs reads appeared more than once (`DuplicateHeaders`).
    var hasDuplicate = false
    /// Every `apns-*` header, lowercase names, as received.
    var recorded = NotificationHeaders(capacity: 4)

    init(_ headers: HTTPHeaders) {
        var contentLength = 0, contentType = 0, duplicate = false
        func set(_ slot: inout String?, _ value: String) {
            if slot != nil { duplicate = true } else { slot = value }
        }
        let apnsPrefix = Self.apnsPrefix
        for field in headers.fields {
            // HTTP/2 names arrive lowercase; only HTTP/1-style names pay for lowercasing.
            let name = field.name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? field.name.lowercased() : field.name
            // By length first: a string switch would compare every name against every case.
            let value = field.value
            switch name.utf8.count {
            case 7 where name == "apns-id": set(&apnsID, value); recorded.append(name, value)
            case 10 where name == "apns-topic": set(&topic, value); recorded.append(name, value)
            case 12 where name == "content-type": contentType += 1
            case 13 where name == "authorization": set(&authorization, value)
            case 13 where name == "apns-priority": set(&priority, value); recorded.append(name, value)
            case 14 where name == "apns-push-type": set(&pushType, value); recorded.append(name, value)
            case 14 where name == "content-length": contentLength += 1
            case 15 where name == "apns-expiration": set(&expiration, value); recorded.append(name, value)
            case 16 where name == "apns-collapse-id": set(&collapseID, value); recorded.append(name, value)
            default:
                // Other apns-* headers are kept for inspection too.
                if name.utf8.first == UInt8(ascii: "a"), name.utf8.starts(with: apnsPrefix) { recorded.append(name, value) }
            }
        }
        hasDuplicate = duplicate || contentLength > 1 || contentType > 1
    }

    private static let apnsPrefix = Array("apns-".utf8)
}
