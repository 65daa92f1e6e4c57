import Foundation
import Testing
import HeraldStore
@testable import HeraldServer

/// `target.filter`: values, in, nin, ne, exists, and any/all groups, checked per device as fan-out does.
@Suite struct AudienceFilterTests {
    func member(_ n: Int, locale: String? = nil, timeZone: String? = nil, properties: String = "{}") -> AudienceMember {
        AudienceMember(seq: Int64(n), id: "m\(n)", deviceToken: token(n), environment: "production", locale: locale, timeZone: timeZone,
                       appVersion: nil, properties: properties)
    }

    func filter(_ json: JSON) throws -> AudienceFilter {
        try AudienceFilter.parse(BodyReader(json.objectValue ?? [:], path: "target.filter"))
    }

    @Test func operatorsAndGroupsSelectTheRightDevices() throws {
        let members = [
            member(1, locale: "fr-FR", timeZone: "Europe/Paris", properties: #"{"plan":"gold","age":30}"#),
            member(2, locale: "zh-Hans_CN", timeZone: "Asia/Shanghai", properties: #"{"plan":"silver"}"#),
            member(3, timeZone: "Asia/Shanghai"),
        ]
        func selected(_ json: JSON) throws -> [String] { try members.filter(filter(json).matches).map(\.id) }

        #expect(try selected(["properties": ["plan": ["nin": ["gold"]]]]) == ["m2", "m3"], "a missing value passes nin")
        #expect(try selected(["properties": ["plan": ["ne": "silver"]]]) == ["m1", "m3"])
        #expect(try selected(["properties": ["age": ["exists": true]]]) == ["m1"])
        #expect(try selected(["locale": ["exists": false]]) == ["m3"])
        #expect(try selected(["locale": ["nin": ["zh"]]]) == ["m1", "m3"], "locales match by lookup chain")
        #expect(try selected(["any": [["properties": ["plan": "gold"]], ["locale": "zh-Hans"]]]) == ["m1", "m2"])
        #expect(try selected(["timeZone": "Asia/Shanghai", "any": [["properties": ["plan": "silver"]], ["locale": ["exists": false]]]]) == ["m2", "m3"])
        #expect(try selected(["all": [["any": [["properties": ["plan": "gold"]], ["timeZone": "Asia/Shanghai"]]],
                                      ["any": [["locale": ["exists": true]]]]]]) == ["m1", "m2"])
    }

    @Test func malformedConditionsNameTheirField() {
        let cases: [(JSON, String)] = [
            (["properties": ["plan": ["gt": 3]]], "target.filter.properties.plan"),
            (["locale": ["in": []]], "target.filter.locale"),
            (["any": []], "target.filter.any"),
            (["any": [["timeZone": ["ne": ["x"]]]]], "target.filter.any[0].timeZone"),
            (["properties": ["plan": ["exists": "yes"]]], "target.filter.properties.plan"),
        ]
        for (json, field) in cases {
            #expect(throws: ServiceError.self) { try filter(json) }
            do { _ = try filter(json) } catch let e as ServiceError { #expect(e.field == field, "\(json.encoded)") } catch {}
        }
    }
}
