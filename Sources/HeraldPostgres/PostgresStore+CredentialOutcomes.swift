import Foundation
import HeraldStore

extension PostgresStore {
    public func recordCredentialOutcomes(_ outcomes: [CredentialOutcomeRecord]) async throws {
        guard !outcomes.isEmpty else { return }
        try await database.write { db in
            for o in outcomes {
                // A NULL time compares as unknown, so it never replaces a stored one.
                _ = try db.execute("""
                    INSERT INTO credential_outcomes (app_id, environment, accepted_at, rejected_at, rejected_reason)
                    SELECT $1::text, $2::text, $3::double precision, $4::double precision, $5::text WHERE EXISTS (SELECT 1 FROM apps WHERE id = $1)
                    ON CONFLICT (app_id, environment) DO UPDATE SET
                        accepted_at = CASE WHEN excluded.accepted_at > coalesce(credential_outcomes.accepted_at, -1e300)
                                           THEN excluded.accepted_at ELSE credential_outcomes.accepted_at END,
                        rejected_reason = CASE WHEN excluded.rejected_at > coalesce(credential_outcomes.rejected_at, -1e300)
                                               THEN excluded.rejected_reason ELSE credential_outcomes.rejected_reason END,
                        rejected_at = CASE WHEN excluded.rejected_at > coalesce(credential_outcomes.rejected_at, -1e300)
                                           THEN excluded.rejected_at ELSE credential_outcomes.rejected_at END
                    """, [.text(o.appID), .text(o.environment), o.acceptedAt.pg, o.rejectedAt.pg, .optionalText(o.rejectedReason)])
            }
        }
    }

    public func credentialOutcomes(appID: String) async throws -> [CredentialOutcomeRecord] {
        try await database.read {
            try $0.all("""
                SELECT app_id, environment, accepted_at, rejected_at, rejected_reason FROM credential_outcomes
                WHERE app_id = $1 ORDER BY environment
                """, [.text(appID)]) { r in
                CredentialOutcomeRecord(appID: r.text(0), environment: r.text(1), acceptedAt: r.optionalDate(2),
                                        rejectedAt: r.optionalDate(3), rejectedReason: r.optionalText(4))
            }
        }
    }
}
