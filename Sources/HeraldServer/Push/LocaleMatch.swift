/// Locale matching for `content.localized` and `target.filter.locale`, in one place so a push's text and its
/// audience never disagree about which devices a locale names.
///
/// BCP 47 lookup (RFC 4647 §3.4): a device's tag is tried whole, then with its last subtag removed, until only
/// the language is left; `zh-Hans-CN` falls back to `zh-Hans`, then `zh`. Devices report `zh-Hans_CN` or
/// `zh_CN` (Apple's `Locale.identifier`) as often as `zh-Hans-CN`, so `_` and `-` are the same separator and
/// case does not matter.
enum LocaleMatch {
    /// Lowercase with `-` separators, the form every comparison uses.
    static func normalize(_ tag: String) -> String {
        tag.replacingOccurrences(of: "_", with: "-").lowercased()
    }

    /// The lookup chain of a device's locale, most specific first: `zh-Hans_CN` → `["zh-hans-cn", "zh-hans", "zh"]`.
    static func fallbacks(_ tag: String) -> [String] {
        var subtags = normalize(tag).split(separator: "-", omittingEmptySubsequences: true)
        var chain: [String] = []
        while !subtags.isEmpty {
            chain.append(subtags.joined(separator: "-"))
            subtags.removeLast()
            // RFC 4647: a single-letter subtag (an extension or private-use marker) never ends a shortened tag.
            while let last = subtags.last, last.count == 1 { subtags.removeLast() }
        }
        return chain
    }

    /// Whether a device with `locale` is named by `range` (already normalized): `zh-hans` and `zh` name a
    /// `zh-Hans_CN` device, `zh-cn` does not.
    static func matches(_ locale: String, range: String) -> Bool {
        fallbacks(locale).contains(range)
    }

    /// The key of `candidates` (normalized key → key as sent) that a device with `locale` uses, or nil.
    static func lookup(_ locale: String, in candidates: [String: String]) -> String? {
        for tag in fallbacks(locale) {
            if let key = candidates[tag] { return key }
        }
        return nil
    }
}
