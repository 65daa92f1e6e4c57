import Foundation

/// A push request, validated: the document in Herald's own shape (the `POST /v1/pushes` body, idempotency
/// key resolved), which is what gets stored so the engine re-reads exactly this after a restart, and what it
/// says (`spec`; its `dryRun` is the caller's choice between `PushesService.create` and `dryRun`). Other
/// dialects (LeanCloud) translate into the document and come through here too.
struct PushInput: Sendable {
    let document: [String: JSON]
    let spec: PushSpec

    /// `now` is the acceptance time: `ttl` counts from it and `sendAt` is checked against it.
    init(_ document: [String: JSON], now: Date) throws {
        spec = try PushSpec.parse(document, now: now)
        self.document = document
    }
}
