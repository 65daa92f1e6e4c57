import Foundation
import Testing
import APNSCore

@Suite struct UUIDTests {
    @Test func canonicalParsingAgreesWithFoundation() {
        for _ in 0..<200 {
            let u = UUID()
            #expect(UUID(canonical: u.uuidString) == u)
            #expect(UUID(canonical: u.uuidString.lowercased()) == u)
        }
    }

    @Test(arguments: ["", "not-a-uuid", "123e4567-e89b-12d3-a456-42661417400", "123e4567e89b-12d3-a456-4266141740000",
                      "123e4567-e89b-12d3-a456-42661417400g", "123e4567-e89b-12d3-a456-4266141740000"])
    func malformedTextIsRejected(_ text: String) {
        #expect(UUID(canonical: text) == nil)
        #expect(UUID(uuidString: text) == nil, "Foundation agrees")
    }

    @Test func lowercasedStringIsFoundationsCanonicalFormInLowercase() {
        var samples = (0..<500).map { _ in UUID() }
        samples.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        samples.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        for u in samples {
            #expect(u.lowercasedString == u.uuidString.lowercased())
        }
    }

    @Test func randomUUIDsAreVersion4AndDistinct() {
        let ids = (0..<1000).map { _ in UUID.random() }
        #expect(Set(ids).count == 1000)
        #expect(ids.allSatisfy { $0.uuidString.dropFirst(14).first == "4" })
        #expect(ids.allSatisfy { "89AB".contains($0.uuidString.dropFirst(19).first!) })
    }
}
