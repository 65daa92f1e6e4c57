import Foundation

/// What an APNs client certificate says about itself: its app, its topics and its environments.
///
/// Read by the simulator (to authorise a TLS client) and by the server (to describe an uploaded
/// certificate). Layout follows Apple's certificates as far as they are known, and pushy's fixtures:
/// subject `UID=<bundle>, CN=Apple Push Services: <bundle>, OU=<team>`; extension
/// 1.2.840.113635.100.6.3.6 = SEQUENCE of UTF8String topic, each followed by SEQUENCE { UTF8String kind };
/// extensions 1.2.840.113635.100.6.3.1 (sandbox) and 1.2.840.113635.100.6.3.2 (production).
public struct APNsCertificateInfo: Sendable, Equatable {
    /// A topic the certificate may push to, and what kind it is.
    public struct Topic: Sendable, Hashable, CustomStringConvertible {
        /// The `apns-topic` value, e.g. `com.example.app.voip`.
        public var name: String
        /// `app`, `voip`, `complication`, ... (Apple's label, kept open).
        public var kind: String

        public init(name: String, kind: String) {
            self.name = name
            self.kind = kind
        }

        public var description: String { "\(name) (\(kind))" }

        /// The topics of a universal certificate for `bundleID`: the app, its VoIP and its complication topic.
        public static func standard(bundleID: String) -> [Topic] {
            [Topic(name: bundleID, kind: "app"), Topic(name: bundleID + ".voip", kind: "voip"),
             Topic(name: bundleID + ".complication", kind: "complication")]
        }
    }

    /// Which APNs environments a certificate is valid for.
    public struct Environments: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Development (`api.sandbox.push.apple.com`).
        public static let sandbox = Environments(rawValue: 1)
        /// Production (`api.push.apple.com`).
        public static let production = Environments(rawValue: 2)
        /// A universal "Sandbox & Production" certificate.
        public static let both: Environments = [.sandbox, .production]

        public var description: String {
            switch self {
            case .both: return "sandbox+production"
            case .sandbox: return "sandbox"
            case .production: return "production"
            default: return "none"
            }
        }
    }

    public static let topicsOID = "1.2.840.113635.100.6.3.6"
    public static let sandboxOID = "1.2.840.113635.100.6.3.1"
    public static let productionOID = "1.2.840.113635.100.6.3.2"

    /// The app's bundle ID: the subject's UID, which is also the default topic.
    public let bundleID: String
    /// The team ID (subject OU), if present.
    public let teamID: String?
    /// The topics the certificate may push to; just the bundle ID (kind `app`) when the certificate has
    /// no topics extension.
    public let topics: [Topic]
    /// The environments from the environment extensions; if there are none, from the common name
    /// ("Apple Development IOS Push Services" / "Apple Production IOS Push Services"); empty if neither says.
    public let environments: Environments

    /// Reads the APNs fields of `certificate`.
    /// - Throws: `CryptoError.invalidArgument` if it names no bundle ID or its topics extension is malformed.
    public init(_ certificate: Certificate) throws {
        guard let bundleID = certificate.subjectUID ?? APNsCertificateInfo.bundleID(fromCommonName: certificate.commonName) else {
            throw CryptoError.invalidArgument(
                "the certificate is not an APNs certificate: its subject (\(certificate.subject)) has no UID= bundle ID")
        }
        self.bundleID = bundleID
        teamID = certificate.organizationalUnit
        if let value = certificate.extensionValue(oid: APNsCertificateInfo.topicsOID) {
            guard let topics = APNsCertificateInfo.decodeTopics(value) else {
                throw CryptoError.invalidArgument("the certificate's APNs topics extension (\(APNsCertificateInfo.topicsOID)) is malformed")
            }
            self.topics = topics
        } else {
            topics = [Topic(name: bundleID, kind: "app")]
        }
        var environments: Environments = []
        if certificate.extensionValue(oid: APNsCertificateInfo.sandboxOID) != nil { environments.insert(.sandbox) }
        if certificate.extensionValue(oid: APNsCertificateInfo.productionOID) != nil { environments.insert(.production) }
        if environments.isEmpty, let commonName = certificate.commonName {
            if commonName.hasPrefix("Apple Development IOS Push Services") { environments = .sandbox }
            if commonName.hasPrefix("Apple Production IOS Push Services") { environments = .production }
        }
        self.environments = environments
    }

    /// The topic names, in certificate order.
    public var topicNames: [String] { topics.map(\.name) }

    /// True if the certificate may push to `topic`.
    public func allows(topic: String) -> Bool { topics.contains { $0.name == topic } }

    /// The DER value of the topics extension for `topics`.
    public static func encodeTopics(_ topics: [Topic]) -> [UInt8] {
        DER.sequence(topics.flatMap { [DER.utf8String($0.name), DER.sequence([DER.utf8String($0.kind)])] })
    }

    /// Reads a SEQUENCE whose UTF8Strings are topics, each optionally followed by a SEQUENCE holding its
    /// kind. Apple's exact layout is not documented, so other element types are skipped rather than
    /// refused; nil only if the DER itself is broken or no topic is found.
    static func decodeTopics(_ value: [UInt8]) -> [Topic]? {
        var outer = DER.Reader(value)
        guard let (tag, content) = outer.next(), tag == DER.sequenceTag, outer.isAtEnd else { return nil }
        var reader = content
        var topics: [Topic] = []
        while let (elementTag, element) = reader.next() {
            switch elementTag {
            case DER.utf8StringTag:
                topics.append(Topic(name: String(decoding: element.remaining, as: UTF8.self), kind: ""))
            case DER.sequenceTag where !topics.isEmpty && topics[topics.count - 1].kind.isEmpty:
                var inner = element
                if let (innerTag, innerValue) = inner.next(), innerTag == DER.utf8StringTag {
                    topics[topics.count - 1].kind = String(decoding: innerValue.remaining, as: UTF8.self)
                }
                if inner.failed { return nil }
            default:
                continue
            }
        }
        return reader.failed || topics.isEmpty ? nil : topics
    }

    private static func bundleID(fromCommonName commonName: String?) -> String? {
        guard let commonName, commonName.contains("Push Services"),
              let separator = commonName.range(of: ": ") else { return nil }
        let bundle = commonName[separator.upperBound...]
        return bundle.isEmpty ? nil : String(bundle)
    }
}
