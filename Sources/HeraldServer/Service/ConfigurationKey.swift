/// One setting of `herald serve`, described once so that parsing, `--help`, `--print-config` and the docs'
/// key table all come from the same row and cannot drift apart. `Settings` is the type the key writes to
/// (`HeraldConfiguration` for the service's keys, the CLI's own settings for the rest); `lifted(_:)` moves a
/// row onto a type that contains it, so both lists compose into one.
public struct ConfigurationKey<Settings>: Sendable {
    /// The dotted key (`delivery.batchSize`); the CLI derives the environment variable and flag from it.
    public let key: String
    /// One line for `--help` and the docs.
    public let help: String
    /// The default as a person reads it (`10 s`, `1048576 (1 MiB)`); docs/server.md shows the same text.
    public let defaultText: String
    /// A secret is never shown: `--print-config` says only whether it is set.
    public let isSecret: Bool
    private let parse: @Sendable (inout Settings, String) throws -> Void
    private let show: @Sendable (Settings) -> String

    /// A key whose value may be shown. `parse` throws an error that names the key; `show` gives the value in
    /// effect, defaults included.
    public init(_ key: String, _ help: String, default defaultText: String,
                parse: @escaping @Sendable (inout Settings, String) throws -> Void,
                show: @escaping @Sendable (Settings) -> String) {
        self.init(key: key, help: help, defaultText: defaultText, isSecret: false, parse: parse, show: show)
    }

    /// A secret key. It takes no way to show the value, only whether it is set, so no caller can print it.
    public static func secret(_ key: String, _ help: String, default defaultText: String, unset: String,
                              isSet: @escaping @Sendable (Settings) -> Bool,
                              parse: @escaping @Sendable (inout Settings, String) throws -> Void) -> Self {
        Self(key: key, help: help, defaultText: defaultText, isSecret: true, parse: parse,
             show: { isSet($0) ? "(set, hidden)" : unset })
    }

    private init(key: String, help: String, defaultText: String, isSecret: Bool,
                 parse: @escaping @Sendable (inout Settings, String) throws -> Void,
                 show: @escaping @Sendable (Settings) -> String) {
        self.key = key
        self.help = help
        self.defaultText = defaultText
        self.isSecret = isSecret
        self.parse = parse
        self.show = show
    }

    /// Applies a value given for this key; throws when the value is not valid for it.
    public func apply(_ value: String, to settings: inout Settings) throws {
        try parse(&settings, value)
    }

    /// The value in effect as `--print-config` shows it (secrets masked).
    public func shown(in settings: Settings) -> String { show(settings) }

    /// The same key on a type that holds `Settings` at `path`.
    public func lifted<Outer>(_ path: WritableKeyPath<Outer, Settings> & Sendable) -> ConfigurationKey<Outer> {
        let parse = self.parse, show = self.show
        return ConfigurationKey<Outer>(key: key, help: help, defaultText: defaultText, isSecret: isSecret,
                                       parse: { outer, value in try parse(&outer[keyPath: path], value) },
                                       show: { outer in show(outer[keyPath: path]) })
    }
}
