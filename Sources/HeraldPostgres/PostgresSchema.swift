import Foundation
import HeraldStore

/// Herald's schema on PostgreSQL: the SQLite schema's tables and meaning, in PostgreSQL's types. Times stay
/// seconds since 1970 as `double precision`, as in SQLite, so a stored `Date` reads back exactly and both
/// stores compare times the same way. Text that is ordered or paged on (`tag > $2`, `ORDER BY id`) is
/// `COLLATE "C"`: byte order, as SQLite sorts, whatever locale the cluster was made with. Versions are
/// PostgreSQL's own (they are not SQLite's numbers); an applied migration is never edited, only followed.
enum PostgresSchema {
    /// Held (session-level) while migrating, so nodes that start together apply each migration once: the
    /// others wait, then find it recorded. A fixed number ("HERALD" in ASCII), not derived from input.
    static let migrationLock: Int64 = 0x48_45_52_41_4C_44

    static let migrations: [Migration] = [
        Migration(version: 1, name: "apps, keys, credentials, installations, tags, pushes, deliveries, opens", sql: """
            CREATE TABLE apps (
                id text COLLATE "C" PRIMARY KEY, name text NOT NULL, topic text, default_time_zone text NOT NULL,
                rate_limit bigint, paused_reason text, paused_at double precision,
                created_at double precision NOT NULL, updated_at double precision NOT NULL);
            CREATE TABLE api_keys (
                id text COLLATE "C" PRIMARY KEY, app_id text COLLATE "C" REFERENCES apps(id) ON DELETE CASCADE,
                scope text NOT NULL, hash bytea NOT NULL UNIQUE, hint text NOT NULL,
                created_at double precision NOT NULL, revoked_at double precision);
            CREATE INDEX api_keys_app ON api_keys(app_id, scope);
            CREATE TABLE credentials (
                app_id text COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE, environment text COLLATE "C" NOT NULL,
                kind text NOT NULL, sealed bytea NOT NULL, key_id text, team_id text, topic text,
                created_at double precision NOT NULL, updated_at double precision NOT NULL,
                PRIMARY KEY (app_id, environment));
            CREATE TABLE installations (
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id text COLLATE "C" NOT NULL UNIQUE,
                app_id text COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                installation_id text COLLATE "C" NOT NULL, device_token text COLLATE "C", environment text NOT NULL, topic text,
                alias text COLLATE "C", user_id text COLLATE "C", locale text, time_zone text, badge bigint NOT NULL DEFAULT 0,
                app_version text, os_version text, device_model text, properties text NOT NULL DEFAULT '{}',
                active boolean NOT NULL DEFAULT true, inactive_reason text, inactive_at double precision,
                created_at double precision NOT NULL, updated_at double precision NOT NULL,
                last_seen_at double precision NOT NULL, token_updated_at double precision NOT NULL);
            CREATE UNIQUE INDEX installations_app_iid ON installations(app_id, installation_id);
            CREATE INDEX installations_app_token ON installations(app_id, device_token);
            CREATE INDEX installations_app_alias ON installations(app_id, alias) WHERE alias IS NOT NULL;
            CREATE INDEX installations_app_user ON installations(app_id, user_id) WHERE user_id IS NOT NULL;
            CREATE INDEX installations_app_updated ON installations(app_id, updated_at);
            CREATE INDEX installations_app_seq ON installations(app_id, seq);
            CREATE TABLE installation_tags (
                app_id text COLLATE "C" NOT NULL, tag text COLLATE "C" NOT NULL,
                seq bigint NOT NULL REFERENCES installations(seq) ON DELETE CASCADE,
                PRIMARY KEY (app_id, tag, seq));
            CREATE INDEX installation_tags_seq ON installation_tags(seq);
            CREATE TABLE pushes (
                id text COLLATE "C" PRIMARY KEY, app_id text COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                idempotency_key text, request text NOT NULL, status text NOT NULL,
                created_at double precision NOT NULL, updated_at double precision NOT NULL, send_at double precision,
                expires_at double precision, finished_at double precision,
                fanout_cursor bigint NOT NULL DEFAULT 0, fanout_done boolean NOT NULL DEFAULT false,
                targeted bigint NOT NULL DEFAULT 0, sent bigint NOT NULL DEFAULT 0, failed bigint NOT NULL DEFAULT 0,
                retired bigint NOT NULL DEFAULT 0, opened bigint NOT NULL DEFAULT 0, cancelled bigint NOT NULL DEFAULT 0,
                error_code text, error_message text);
            CREATE UNIQUE INDEX pushes_idempotency ON pushes(app_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
            CREATE INDEX pushes_app_created ON pushes(app_id, created_at);
            CREATE INDEX pushes_status ON pushes(status, send_at);
            CREATE TABLE push_failures (
                push_id text COLLATE "C" NOT NULL REFERENCES pushes(id) ON DELETE CASCADE, reason text NOT NULL,
                count bigint NOT NULL, PRIMARY KEY (push_id, reason));
            CREATE TABLE deliveries (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                push_id text COLLATE "C" NOT NULL REFERENCES pushes(id) ON DELETE CASCADE,
                seq bigint NOT NULL, installation_id text NOT NULL, device_token text NOT NULL,
                environment text NOT NULL, variant text NOT NULL, badge bigint,
                state smallint NOT NULL, attempts integer NOT NULL DEFAULT 0, not_before double precision NOT NULL,
                apns_id text, status integer, reason text, updated_at double precision NOT NULL);
            -- As on SQLite: small partial indexes hold only the rows that can still change.
            CREATE INDEX deliveries_push ON deliveries(push_id, id);
            CREATE INDEX deliveries_pending ON deliveries(push_id, not_before, id) WHERE state = 0;
            CREATE INDEX deliveries_in_flight ON deliveries(push_id) WHERE state = 1;
            CREATE TABLE opens (
                push_id text COLLATE "C" NOT NULL REFERENCES pushes(id) ON DELETE CASCADE, seq bigint NOT NULL,
                opened_at double precision NOT NULL, PRIMARY KEY (push_id, seq));
            """),
        Migration(version: 2, name: "compatibility identities", sql: """
            CREATE TABLE compat_identities (
                app_id text COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE, provider text COLLATE "C" NOT NULL,
                public_id text COLLATE "C" NOT NULL, sealed bytea NOT NULL, hint text NOT NULL,
                created_at double precision NOT NULL, updated_at double precision NOT NULL,
                PRIMARY KEY (app_id, provider));
            CREATE UNIQUE INDEX compat_identities_public ON compat_identities(provider, public_id);
            """),
        // Webhooks and their outbox (docs/webhooks.md), as SQLite's version 7.
        Migration(version: 3, name: "webhooks, events outbox, webhook deliveries", sql: """
            CREATE TABLE webhooks (
                id text COLLATE "C" PRIMARY KEY, app_id text COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                url text NOT NULL, events text NOT NULL, description text, enabled boolean NOT NULL,
                sealed_secret bytea NOT NULL, failure_run integer NOT NULL DEFAULT 0, disabled_reason text, disabled_at double precision,
                created_at double precision NOT NULL, updated_at double precision NOT NULL);
            CREATE INDEX webhooks_app ON webhooks(app_id);
            CREATE TABLE webhook_events (
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                webhook_id text COLLATE "C" NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
                event_id text NOT NULL, app_id text NOT NULL, type text NOT NULL, created_at double precision NOT NULL, data text NOT NULL,
                state smallint NOT NULL DEFAULT 0, delivery_id text COLLATE "C");
            CREATE INDEX webhook_events_unbatched ON webhook_events(webhook_id, seq) WHERE delivery_id IS NULL;
            CREATE INDEX webhook_events_pending ON webhook_events(created_at) WHERE state = 0;
            CREATE INDEX webhook_events_delivery ON webhook_events(delivery_id, seq) WHERE delivery_id IS NOT NULL;
            CREATE INDEX webhook_events_finished ON webhook_events(created_at) WHERE state <> 0;
            CREATE TABLE webhook_deliveries (
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id text COLLATE "C" NOT NULL UNIQUE,
                webhook_id text COLLATE "C" NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
                kind text NOT NULL, state text NOT NULL, source_id text, event_count integer NOT NULL, since double precision NOT NULL,
                created_at double precision NOT NULL, next_attempt_at double precision, finished_at double precision,
                lease_owner text, lease_until double precision);
            CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE state = 'pending';
            CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, seq);
            CREATE TABLE webhook_attempts (
                delivery_id text COLLATE "C" NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE, number integer NOT NULL,
                at double precision NOT NULL, status integer, body text, error text, latency_ms integer NOT NULL,
                PRIMARY KEY (delivery_id, number));
            """),
        // Nodes and leases: each claim (a delivery in flight, a push's fan-out) names the node that made it,
        // and a node's claims last while its row in `nodes` has not expired (PostgresStore+Nodes).
        Migration(version: 4, name: "nodes, leases, claims recorded by node", sql: """
            CREATE TABLE nodes (id text COLLATE "C" PRIMARY KEY, started_at double precision NOT NULL,
                                expires_at double precision NOT NULL);
            CREATE TABLE leases (name text COLLATE "C" PRIMARY KEY, node text COLLATE "C" NOT NULL,
                                 expires_at double precision NOT NULL);
            ALTER TABLE deliveries ADD COLUMN claimed_by text COLLATE "C";
            ALTER TABLE pushes ADD COLUMN fanout_node text COLLATE "C";
            CREATE INDEX pushes_fanout_node ON pushes(fanout_node) WHERE fanout_node IS NOT NULL;
            """),
        Migration(version: 5, name: "jpush schedules", sql: """
            CREATE TABLE jpush_schedules (
                app_id text COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE, id text COLLATE "C" NOT NULL,
                name text NOT NULL, enabled boolean NOT NULL, trigger text NOT NULL, push text NOT NULL, push_id text COLLATE "C",
                created_at double precision NOT NULL, updated_at double precision NOT NULL,
                PRIMARY KEY (app_id, id));
            CREATE INDEX jpush_schedules_created ON jpush_schedules(app_id, created_at, id);
            """),
        Migration(version: 7, name: "console sessions", sql: """
            CREATE TABLE console_sessions (
                id_hash bytea PRIMARY KEY, key_hash bytea NOT NULL, created_at double precision NOT NULL,
                last_seen_at double precision NOT NULL);
            CREATE INDEX console_sessions_last_seen ON console_sessions(last_seen_at);
            """),
        // As SQLite's version 12: a device's deliveries by the installation's seq; credential outcomes.
        // The index is built inside the migration's transaction, which blocks writes to deliveries while
        // it builds (seconds per million rows).
        Migration(version: 8, name: "deliveries by installation, credential outcomes", sql: """
            CREATE INDEX deliveries_installation ON deliveries(seq, id);
            CREATE TABLE credential_outcomes (
                app_id text COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE, environment text COLLATE "C" NOT NULL,
                accepted_at double precision, rejected_at double precision, rejected_reason text,
                PRIMARY KEY (app_id, environment));
            """),
        // Bulk write speed (docs/deploy.md, "PostgreSQL performance"). The foreign keys of installations (to
        // their app), of installation_tags (to their installation) and of deliveries (to their push) cost a
        // trigger and a row lock per inserted row: about a third of PostgreSQL's CPU per imported installation,
        // and nearly half of a delivery row's insert. The store keeps the same integrity itself: deleting an
        // app, an installation or a push deletes what hangs off it, and a write of installations checks its
        // app under the app's advisory lock (PostgresStore+Installations). `seq` becomes "by default" so an
        // import can take its numbers from the sequence first and COPY installations and their tags with
        // them, instead of joining the tags to their installations by id.
        Migration(version: 9, name: "no per-row foreign keys on installations, tags and deliveries; seq assignable", sql: """
            ALTER TABLE installations DROP CONSTRAINT installations_app_id_fkey;
            ALTER TABLE installation_tags DROP CONSTRAINT installation_tags_seq_fkey;
            ALTER TABLE deliveries DROP CONSTRAINT deliveries_push_id_fkey;
            ALTER TABLE installations ALTER COLUMN seq SET GENERATED BY DEFAULT;
            """),
        // Seqs APNs accepted of fan-out pages not yet written (`journalAccepted`), so a fan-out resuming after
        // a crash re-sends only what was on the wire. Entries go once the cursor passes them, or with the push.
        Migration(version: 10, name: "delivery journal", sql: """
            CREATE TABLE delivery_journal (
                push_id text COLLATE "C" NOT NULL REFERENCES pushes(id) ON DELETE CASCADE,
                first_seq bigint NOT NULL, last_seq bigint NOT NULL, seqs bytea NOT NULL);
            CREATE INDEX delivery_journal_push ON delivery_journal(push_id, last_seq);
            """),
        // A webhook's next batch is formed only when it has no batch of events pending; without this index
        // the check reads every delivery the webhook had in `push.retentionDays` (SQLite's migration 17).
        Migration(version: 11, name: "a webhook's pending batch of events found without its history", sql: """
            CREATE INDEX webhook_deliveries_pending_events ON webhook_deliveries(webhook_id) WHERE state = 'pending' AND kind = 'events';
            """),
    ]

    /// Applies the migrations not yet recorded in `schema_migrations`, each in its own transaction, under
    /// the migration lock. Returns the versions this call applied.
    static func migrate(_ connection: PostgresConnection, now: Double) throws -> [Int] {
        try connection.execute("SELECT pg_advisory_lock($1)", [.integer(migrationLock)])
        defer { _ = try? connection.execute("SELECT pg_advisory_unlock($1)", [.integer(migrationLock)]) }
        try connection.executeScript("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY, name text NOT NULL, applied_at double precision NOT NULL);
            """)
        let applied = Set(try connection.all("SELECT version FROM schema_migrations") { $0.int(0) })
        var ran: [Int] = []
        for migration in migrations.sorted(by: { $0.version < $1.version }) where !applied.contains(migration.version) {
            try connection.transaction {
                try connection.executeScript(migration.sql)
                try connection.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                                       [.int(migration.version), .text(migration.name), .real(now)])
            }
            ran.append(migration.version)
        }
        return ran
    }
}
