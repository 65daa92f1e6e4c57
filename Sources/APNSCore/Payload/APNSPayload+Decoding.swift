extension APNSPayload {
    /// Reads a payload from JSON bytes.
    ///
    /// Lenient where senders commonly differ and the meaning is unambiguous: `badge` may be a
    /// numeric string (`"3"`); flags (`content-available`, `mutable-content`, `input-push-token`)
    /// may be `1`/`0`, `true`/`false` or `"1"`/`"0"`; integral numbers may be written as doubles
    /// (`3.0`). Unknown keys are kept (``APNSAps/extra``, ``APNSAlertContent/extra``).
    ///
    /// - Throws: ``APNSDecodingError`` naming the key path when the bytes are not JSON, not an
    ///   object, or a known key has a value of the wrong kind (`aps.badge: expected an integer…`).
    public init(jsonBytes: some Collection<UInt8>) throws(APNSDecodingError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: jsonBytes)
        } catch {
            throw APNSDecodingError(error)
        }
        try self.init(json: value)
    }

    /// Reads a payload from an already parsed JSON value (see ``init(jsonBytes:)``).
    public init(json: JSONValue) throws(APNSDecodingError) {
        guard let root = json.objectValue else {
            throw APNSDecodingError(path: nil, problem: "a payload must be a JSON object, found \(json.kindDescription)")
        }
        var custom = JSONObject()
        var aps: APNSAps?
        for (key, value) in root {
            if key == "aps" {
                guard let apsObject = value.objectValue else {
                    throw APNSDecodingError(path: "aps", problem: "expected an object, found \(value.kindDescription)")
                }
                aps = try APNSAps(apsObject)
            } else {
                custom.appendUnchecked(key, value)
            }
        }
        self.init(aps: aps, custom: custom)
    }
}

extension APNSAps {
    init(_ object: JSONObject) throws(APNSDecodingError) {
        self.init()
        for (key, value) in object {
            let field = Field(path: "aps.\(key)", value: value)
            switch key {
            case "alert":
                switch value {
                case .string(let text): alert = .text(text)
                case .object(let dictionary): alert = .content(try APNSAlertContent(dictionary))
                default: throw field.mismatch("a string or an object")
                }
            case "badge": badge = try field.integer(allowingNumericString: true)
            case "sound":
                switch value {
                case .string(let name): sound = .named(name)
                case .object(let dictionary): sound = .critical(try APNSCriticalSound(dictionary))
                default: throw field.mismatch("a string or an object")
                }
            case "thread-id": threadID = try field.string()
            case "category": category = try field.string()
            case "content-available": contentAvailable = try field.flag()
            case "mutable-content": mutableContent = try field.flag()
            case "target-content-id": targetContentID = try field.string()
            case "interruption-level": interruptionLevel = APNSInterruptionLevel(rawValue: try field.string())
            case "relevance-score": relevanceScore = try field.number()
            case "filter-criteria": filterCriteria = try field.string()
            case "stale-date": staleDate = try field.integer()
            case "content-state": contentState = try field.object()
            case "timestamp": timestamp = try field.integer()
            case "event": event = APNSLiveActivityEvent(rawValue: try field.string())
            case "dismissal-date": dismissalDate = try field.integer()
            case "attributes-type": attributesType = try field.string()
            case "attributes": attributes = try field.object()
            case "input-push-token": inputPushToken = try field.flag()
            case "input-push-channel": inputPushChannel = try field.string()
            case "content-changed": contentChanged = try field.flag()
            default: extra.appendUnchecked(key, value)
            }
        }
    }
}

extension APNSAlertContent {
    init(_ object: JSONObject) throws(APNSDecodingError) {
        self.init()
        for (key, value) in object {
            let field = Field(path: "aps.alert.\(key)", value: value)
            switch (key, value) {
            // Live Activity alerts may localise title and body with a dictionary: keep it as is.
            case ("title", .object), ("body", .object), ("subtitle", .object):
                extra.appendUnchecked(key, value)
            case ("title", _): title = try field.string()
            case ("subtitle", _): subtitle = try field.string()
            case ("body", _): body = try field.string()
            case ("launch-image", _): launchImage = try field.string()
            case ("title-loc-key", _): titleLocKey = try field.string()
            case ("title-loc-args", _): titleLocArgs = try field.strings()
            case ("subtitle-loc-key", _): subtitleLocKey = try field.string()
            case ("subtitle-loc-args", _): subtitleLocArgs = try field.strings()
            case ("loc-key", _): locKey = try field.string()
            case ("loc-args", _): locArgs = try field.strings()
            case ("action-loc-key", .null): actionLocKey = .hideViewButton
            case ("action-loc-key", _): actionLocKey = .key(try field.string())
            case ("action", _): action = try field.string()
            case ("summary-arg", _): summaryArg = try field.string()
            case ("summary-arg-count", _): summaryArgCount = try field.integer()
            case ("url-args", _): urlArgs = try field.strings()
            default: extra.appendUnchecked(key, value)
            }
        }
    }
}

extension APNSCriticalSound {
    /// Unknown keys of the sound dictionary are ignored.
    init(_ object: JSONObject) throws(APNSDecodingError) {
        self.init(isCritical: false, name: "default", volume: nil)
        for (key, value) in object {
            let field = Field(path: "aps.sound.\(key)", value: value)
            switch key {
            case "critical": isCritical = try field.flag()
            case "name": name = try field.string()
            case "volume": volume = try field.number()
            default: break
            }
        }
    }
}

/// One member being decoded: its path for error messages and the typed readers.
private struct Field {
    let path: String
    let value: JSONValue

    func mismatch(_ expected: String) -> APNSDecodingError {
        APNSDecodingError(path: path, problem: "expected \(expected), found \(value.kindDescription)")
    }

    func string() throws(APNSDecodingError) -> String {
        guard let string = value.stringValue else { throw mismatch("a string") }
        return string
    }

    func strings() throws(APNSDecodingError) -> [String] {
        guard let array = value.arrayValue else { throw mismatch("an array of strings") }
        var strings: [String] = []
        strings.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard let string = element.stringValue else {
                throw APNSDecodingError(
                    path: "\(path)[\(index)]", problem: "expected a string, found \(element.kindDescription)")
            }
            strings.append(string)
        }
        return strings
    }

    func integer(allowingNumericString: Bool = false) throws(APNSDecodingError) -> Int {
        if let integer = value.intValue { return integer }
        if allowingNumericString, let text = value.stringValue,
            let integer = Int(text.trimmingWhitespace())
        {
            return integer
        }
        throw mismatch(allowingNumericString ? "an integer or a numeric string" : "an integer")
    }

    func number() throws(APNSDecodingError) -> Double {
        guard let number = value.doubleValue else { throw mismatch("a number") }
        return number
    }

    func flag() throws(APNSDecodingError) -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .int(let number) where number == 0 || number == 1: return number == 1
        case .double(let number) where number == 0 || number == 1: return number == 1
        case .string("1"), .string("true"): return true
        case .string("0"), .string("false"): return false
        default: throw mismatch("1 or 0 (or true/false)")
        }
    }

    func object() throws(APNSDecodingError) -> JSONObject {
        guard let object = value.objectValue else { throw mismatch("an object") }
        return object
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> Substring {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return self[start...end]
    }
}
