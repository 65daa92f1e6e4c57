extension APNSPayload {
    /// The payload as compact JSON bytes.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        write(to: &writer)
        return writer.bytes
    }

    /// The payload encoded once, with what validation needs to know about it, ready to be
    /// shared by every notification that carries it.
    public func encoded() -> APNSEncodedPayload {
        APNSEncodedPayload(bytes: jsonBytes(), traits: traits)
    }

    /// Facts about this payload that decide push type and validation.
    public var traits: APNSPayloadTraits {
        APNSPayloadTraits(
            hasAps: aps != nil,
            contentAvailable: aps?.contentAvailable ?? false,
            userVisibleKeys: aps?.userVisibleKeys ?? [],
            hasCustomApsKey: custom.contains("aps"),
            liveActivityEvent: aps?.event,
            hasTimestamp: aps?.timestamp != nil,
            hasAttributesType: aps?.attributesType != nil,
            hasAttributes: aps?.attributes != nil)
    }

    func write(to writer: inout JSONWriter) {
        writer.writeRaw(UInt8(ascii: "{"))
        var first = true
        if let aps {
            writer.writeStaticKey("aps", first: &first)
            aps.write(to: &writer)
        }
        writer.writeMembers(of: custom, first: first) { $0 == "aps" }
        writer.writeRaw(UInt8(ascii: "}"))
    }
}

extension APNSAps {
    func write(to writer: inout JSONWriter) {
        writer.writeRaw(UInt8(ascii: "{"))
        var first = true
        switch alert {
        case .text(let text)?:
            writer.writeStaticKey("alert", first: &first)
            writer.writeString(text)
        case .content(let content)?:
            writer.writeStaticKey("alert", first: &first)
            content.write(to: &writer)
        case nil:
            break
        }
        if let badge {
            writer.writeStaticKey("badge", first: &first)
            writer.writeInt(badge)
        }
        switch sound {
        case .named(let name)?:
            writer.writeStaticKey("sound", first: &first)
            writer.writeString(name)
        case .critical(let critical)?:
            writer.writeStaticKey("sound", first: &first)
            critical.write(to: &writer)
        case nil:
            break
        }
        if let threadID {
            writer.writeStaticKey("thread-id", first: &first)
            writer.writeString(threadID)
        }
        if let category {
            writer.writeStaticKey("category", first: &first)
            writer.writeString(category)
        }
        if contentAvailable {
            writer.writeStaticKey("content-available", first: &first)
            writer.writeInt(1)
        }
        if mutableContent {
            writer.writeStaticKey("mutable-content", first: &first)
            writer.writeInt(1)
        }
        if let targetContentID {
            writer.writeStaticKey("target-content-id", first: &first)
            writer.writeString(targetContentID)
        }
        if let interruptionLevel {
            writer.writeStaticKey("interruption-level", first: &first)
            writer.writeString(interruptionLevel.rawValue)
        }
        if let relevanceScore {
            writer.writeStaticKey("relevance-score", first: &first)
            writer.writeDouble(relevanceScore)
        }
        if let filterCriteria {
            writer.writeStaticKey("filter-criteria", first: &first)
            writer.writeString(filterCriteria)
        }
        if let staleDate {
            writer.writeStaticKey("stale-date", first: &first)
            writer.writeInt(staleDate)
        }
        if let contentState {
            writer.writeStaticKey("content-state", first: &first)
            writer.write(.object(contentState))
        }
        if let timestamp {
            writer.writeStaticKey("timestamp", first: &first)
            writer.writeInt(timestamp)
        }
        if let event {
            writer.writeStaticKey("event", first: &first)
            writer.writeString(event.rawValue)
        }
        if let dismissalDate {
            writer.writeStaticKey("dismissal-date", first: &first)
            writer.writeInt(dismissalDate)
        }
        if let attributesType {
            writer.writeStaticKey("attributes-type", first: &first)
            writer.writeString(attributesType)
        }
        if let attributes {
            writer.writeStaticKey("attributes", first: &first)
            writer.write(.object(attributes))
        }
        if inputPushToken {
            writer.writeStaticKey("input-push-token", first: &first)
            writer.writeInt(1)
        }
        if let inputPushChannel {
            writer.writeStaticKey("input-push-channel", first: &first)
            writer.writeString(inputPushChannel)
        }
        if contentChanged {
            writer.writeStaticKey("content-changed", first: &first)
            writer.writeBool(true)
        }
        if !extra.isEmpty {
            writer.writeMembers(of: extra, first: first) { isWrittenByProperty($0) }
        }
        writer.writeRaw(UInt8(ascii: "}"))
    }

    /// Whether a typed property already wrote `key`, so an ``extra`` entry of that name is skipped.
    private func isWrittenByProperty(_ key: String) -> Bool {
        switch key {
        case "alert": return alert != nil
        case "badge": return badge != nil
        case "sound": return sound != nil
        case "thread-id": return threadID != nil
        case "category": return category != nil
        case "content-available": return contentAvailable
        case "mutable-content": return mutableContent
        case "target-content-id": return targetContentID != nil
        case "interruption-level": return interruptionLevel != nil
        case "relevance-score": return relevanceScore != nil
        case "filter-criteria": return filterCriteria != nil
        case "stale-date": return staleDate != nil
        case "content-state": return contentState != nil
        case "timestamp": return timestamp != nil
        case "event": return event != nil
        case "dismissal-date": return dismissalDate != nil
        case "attributes-type": return attributesType != nil
        case "attributes": return attributes != nil
        case "input-push-token": return inputPushToken
        case "input-push-channel": return inputPushChannel != nil
        case "content-changed": return contentChanged
        default: return false
        }
    }
}

extension APNSAlertContent {
    func write(to writer: inout JSONWriter) {
        writer.writeRaw(UInt8(ascii: "{"))
        var first = true
        if let title {
            writer.writeStaticKey("title", first: &first)
            writer.writeString(title)
        }
        if let subtitle {
            writer.writeStaticKey("subtitle", first: &first)
            writer.writeString(subtitle)
        }
        if let body {
            writer.writeStaticKey("body", first: &first)
            writer.writeString(body)
        }
        if let launchImage {
            writer.writeStaticKey("launch-image", first: &first)
            writer.writeString(launchImage)
        }
        if let titleLocKey {
            writer.writeStaticKey("title-loc-key", first: &first)
            writer.writeString(titleLocKey)
        }
        if let titleLocArgs {
            writer.writeStaticKey("title-loc-args", first: &first)
            writer.writeStringArray(titleLocArgs)
        }
        if let subtitleLocKey {
            writer.writeStaticKey("subtitle-loc-key", first: &first)
            writer.writeString(subtitleLocKey)
        }
        if let subtitleLocArgs {
            writer.writeStaticKey("subtitle-loc-args", first: &first)
            writer.writeStringArray(subtitleLocArgs)
        }
        if let locKey {
            writer.writeStaticKey("loc-key", first: &first)
            writer.writeString(locKey)
        }
        if let locArgs {
            writer.writeStaticKey("loc-args", first: &first)
            writer.writeStringArray(locArgs)
        }
        switch actionLocKey {
        case .key(let key)?:
            writer.writeStaticKey("action-loc-key", first: &first)
            writer.writeString(key)
        case .hideViewButton?:
            writer.writeStaticKey("action-loc-key", first: &first)
            writer.writeNull()
        case nil:
            break
        }
        if let action {
            writer.writeStaticKey("action", first: &first)
            writer.writeString(action)
        }
        if let summaryArg {
            writer.writeStaticKey("summary-arg", first: &first)
            writer.writeString(summaryArg)
        }
        if let summaryArgCount {
            writer.writeStaticKey("summary-arg-count", first: &first)
            writer.writeInt(summaryArgCount)
        }
        if let urlArgs {
            writer.writeStaticKey("url-args", first: &first)
            writer.writeStringArray(urlArgs)
        }
        if !extra.isEmpty {
            writer.writeMembers(of: extra, first: first) { isWrittenByProperty($0) }
        }
        writer.writeRaw(UInt8(ascii: "}"))
    }

    private func isWrittenByProperty(_ key: String) -> Bool {
        switch key {
        case "title": return title != nil
        case "subtitle": return subtitle != nil
        case "body": return body != nil
        case "launch-image": return launchImage != nil
        case "title-loc-key": return titleLocKey != nil
        case "title-loc-args": return titleLocArgs != nil
        case "subtitle-loc-key": return subtitleLocKey != nil
        case "subtitle-loc-args": return subtitleLocArgs != nil
        case "loc-key": return locKey != nil
        case "loc-args": return locArgs != nil
        case "action-loc-key": return actionLocKey != nil
        case "action": return action != nil
        case "summary-arg": return summaryArg != nil
        case "summary-arg-count": return summaryArgCount != nil
        case "url-args": return urlArgs != nil
        default: return false
        }
    }
}

extension APNSCriticalSound {
    func write(to writer: inout JSONWriter) {
        writer.writeRaw(UInt8(ascii: "{"))
        var first = true
        writer.writeStaticKey("critical", first: &first)
        writer.writeInt(isCritical ? 1 : 0)
        writer.writeStaticKey("name", first: &first)
        writer.writeString(name)
        if let volume {
            writer.writeStaticKey("volume", first: &first)
            writer.writeDouble(volume)
        }
        writer.writeRaw(UInt8(ascii: "}"))
    }
}
