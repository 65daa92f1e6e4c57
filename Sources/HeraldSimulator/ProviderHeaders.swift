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
    var recorded: [String: String] = [:]

    init(_ headers: HTTPHeaders) {
        var contentLength = 0, contentType = 0, duplicate = false
        func set(_ slot: inout String?, _ value: String) {
            if slot != nil { duplicate = true } else { slot = value }
        }
        for field in headers.fields {
            // HTTP/2 names arrive lowercase; only HTTP/1-style names pay for lowercasing.
            let name = field.name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? field.name.lowercased() : field.name
            switch name {
            case "apns-id": set(&apnsID, field.value)
            case "apns-expiration": set(&expiration, field.value)
            case "apns-priority": set(&priority, field.value)
            case "apns-topic": set(&topic, field.value)
            case "apns-push-type": set(&pushType, field.value)
            case "apns-collapse-id": set(&collapseID, field.value)
            case "authorization": set(&authorization, field.value)
            case "content-length": contentLength += 1
            case "content-type": contentType += 1
            default: break
            }
            if name.hasPrefix("apns-") { recorded[name] = field.value }
        }
        hasDuplicate = duplicate || contentLength > 1 || contentType > 1
    }
}
