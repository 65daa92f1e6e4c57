import HeraldStore

/// Applies the migrations not yet recorded in `schema_migrations`, each in its own transaction.
enum Migrator {
    static func migrate(_ connection: SQLiteConnection, migrations: [Migration], now: Double) throws -> [Int] {
        try connection.executeScript("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL);
            """)
        let applied = Set(try connection.all("SELECT version FROM schema_migrations") { $0.int(0) })
        var ran: [Int] = []
        for migration in migrations.sorted(by: { $0.version < $1.version }) where !applied.contains(migration.version) {
            try connection.transaction {
                try connection.executeScript(migration.sql)
                try connection.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                                       [.int(migration.version), .text(migration.name), .real(now)])
            }
            ran.append(migration.version)
        }
        return ran
    }
}

/// Herald's schema. Installations keep SQLite's integer rowid (`seq`) as the keyset cursor for fan-out,
/// export and pagination; tags live in their own table keyed by (app, tag, installation).
enum SQLiteSchema {
    static let migrations: [Migration] = [
        Migration(version: 1, name: "apps, keys, credentials", sql: """
            CREATE TABLE apps (
                id TEXT PRIMARY KEY, name TEXT NOT NULL, topic TEXT, default_time_zone TEXT NOT NULL,
                rate_limit INTEGER, paused_reason TEXT, paused_at REAL,
                created_at REAL NOT NULL, updated_at REAL NOT NULL);
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY, app_id TEXT REFERENCES apps(id) ON DELETE CASCADE,
                scope TEXT NOT NULL, hash BLOB NOT NULL UNIQUE, hint TEXT NOT NULL,
                created_at REAL NOT NULL, revoked_at REAL);
            CREATE INDEX api_keys_app ON api_keys(app_id, scope);
            CREATE TABLE credentials (
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, environment TEXT NOT NULL,
                kind TEXT NOT NULL, sealed BLOB NOT NULL, key_id TEXT, team_id TEXT, topic TEXT,
                created_at REAL NOT NULL, updated_at REAL NOT NULL,
                PRIMARY KEY (app_id, environment));
            """),
        Migration(version: 2, name: "installations and tags", sql: """
            CREATE TABLE installations (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                installation_id TEXT NOT NULL, device_token TEXT, environment TEXT NOT NULL, topic TEXT,
                alias TEXT, user_id TEXT, locale TEXT, time_zone TEXT, badge INTEGER NOT NULL DEFAULT 0,
                app_version TEXT, os_version TEXT, device_model TEXT, properties TEXT NOT NULL DEFAULT '{}',
                active INTEGER NOT NULL DEFAULT 1, inactive_reason TEXT, inactive_at REAL,
                created_at REAL NOT NULL, updated_at REAL NOT NULL, last_seen_at REAL NOT NULL,
                token_updated_at REAL NOT NULL);
            CREATE UNIQUE INDEX installations_app_iid ON installations(app_id, installation_id);
            CREATE INDEX installations_app_token ON installations(app_id, device_token);
            CREATE INDEX installations_app_alias ON installations(app_id, alias) WHERE alias IS NOT NULL;
            CREATE INDEX installations_app_user ON installations(app_id, user_id) WHERE user_id IS NOT NULL;
            CREATE INDEX installations_app_updated ON installations(app_id, updated_at);
            CREATE TABLE installation_tags (
                app_id TEXT NOT NULL, tag TEXT NOT NULL, seq INTEGER NOT NULL REFERENCES installations(seq) ON DELETE CASCADE,
                PRIMARY KEY (app_id, tag, seq)) WITHOUT ROWID;
            CREATE INDEX installation_tags_seq ON installation_tags(seq);
            """),
        Migration(version: 3, name: "pushes, deliveries, opens", sql: """
            CREATE TABLE pushes (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                idempotency_key TEXT, request TEXT NOT NULL, status TEXT NOT NULL,
                created_at REAL NOT NULL, updated_at REAL NOT NULL, send_at REAL, expires_at REAL,
                finished_at REAL, fanout_cursor INTEGER NOT NULL DEFAULT 0, fanout_done INTEGER NOT NULL DEFAULT 0,
                targeted INTEGER NOT NULL DEFAULT 0, sent INTEGER NOT NULL DEFAULT 0,
                failed INTEGER NOT NULL DEFAULT 0, retired INTEGER NOT NULL DEFAULT 0,
                opened INTEGER NOT NULL DEFAULT 0, cancelled INTEGER NOT NULL DEFAULT 0,
                error_code TEXT, error_message TEXT);
            CREATE UNIQUE INDEX pushes_idempotency ON pushes(app_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
            CREATE INDEX pushes_app_created ON pushes(app_id, created_at);
            CREATE INDEX pushes_status ON pushes(status, send_at);
            CREATE TABLE push_failures (
                push_id TEXT NOT NULL REFERENCES pushes(id) ON DELETE CASCADE, reason TEXT NOT NULL,
                count INTEGER NOT NULL, PRIMARY KEY (push_id, reason)) WITHOUT ROWID;
            CREATE TABLE deliveries (
                id INTEGER PRIMARY KEY, push_id TEXT NOT NULL REFERENCES pushes(id) ON DELETE CASCADE,
                seq INTEGER NOT NULL, installation_id TEXT NOT NULL, device_token TEXT NOT NULL,
                environment TEXT NOT NULL, variant TEXT NOT NULL, badge INTEGER,
                state INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, not_before REAL NOT NULL,
                apns_id TEXT, status INTEGER, reason TEXT, updated_at REAL NOT NULL);
            CREATE INDEX deliveries_claim ON deliveries(push_id, state, not_before);
            CREATE INDEX deliveries_state ON deliveries(state) WHERE state = 1;
            CREATE TABLE opens (
                push_id TEXT NOT NULL REFERENCES pushes(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
                opened_at REAL NOT NULL, PRIMARY KEY (push_id, seq)) WITHOUT ROWID;
            """),
        Migration(version: 4, name: "keyset index for fan-out and listing", sql: """
            CREATE INDEX installations_app_seq ON installations(app_id, seq);
            """),
        // A delivery changes state once or twice (pending, in flight, then sent or failed). With `state`
        // inside one index keyed by the 36-character push id, every change rewrote an entry of it; now
        // only small partial indexes hold the rows that can still change, and a finished row leaves them.
        Migration(version: 5, name: "deliveries indexed by what can still change", sql: """
            DROP INDEX deliveries_claim;
            DROP INDEX deliveries_state;
            CREATE INDEX deliveries_push ON deliveries(push_id, id);
            CREATE INDEX deliveries_pending ON deliveries(push_id, not_before, id) WHERE state = 0;
            CREATE INDEX deliveries_in_flight ON deliveries(push_id) WHERE state = 1;
            """),
        Migration(version: 6, name: "compatibility identities", sql: """
            CREATE TABLE compat_identities (
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, provider TEXT NOT NULL,
                public_id TEXT NOT NULL, sealed BLOB NOT NULL, hint TEXT NOT NULL,
                created_at REAL NOT NULL, updated_at REAL NOT NULL,
                PRIMARY KEY (app_id, provider));
            CREATE UNIQUE INDEX compat_identities_public ON compat_identities(provider, public_id);
            """),
        // Webhooks and their outbox (docs/webhooks.md): one event row per subscribed webhook, written in the
        // transaction of the change it reports and never changed after (a fan-out writes it once). One writer
        // makes `seq` commit order, so a webhook's batches are ranges of it: `batched_through` is how far its
        // batches reach, and a batch (a delivery) names its first and last seq.
        Migration(version: 7, name: "webhooks, events outbox, webhook deliveries", sql: """
            CREATE TABLE webhooks (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                url TEXT NOT NULL, events TEXT NOT NULL, description TEXT, enabled INTEGER NOT NULL,
                sealed_secret BLOB NOT NULL, failure_run INTEGER NOT NULL DEFAULT 0, disabled_reason TEXT, disabled_at REAL,
                created_at REAL NOT NULL, updated_at REAL NOT NULL, batched_through INTEGER NOT NULL DEFAULT 0);
            CREATE INDEX webhooks_app ON webhooks(app_id);
            CREATE TABLE webhook_events (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
                event_id TEXT NOT NULL, type TEXT NOT NULL, created_at REAL NOT NULL, data TEXT NOT NULL);
            CREATE INDEX webhook_events_webhook ON webhook_events(webhook_id, seq);
            CREATE TABLE webhook_deliveries (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
                webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
                kind TEXT NOT NULL, state TEXT NOT NULL, source_id TEXT, event_count INTEGER NOT NULL, since REAL NOT NULL,
                created_at REAL NOT NULL, next_attempt_at REAL, finished_at REAL, lease_owner TEXT, lease_until REAL,
                first_seq INTEGER, last_seq INTEGER);
            CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE state = 'pending';
            CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, seq);
            CREATE TABLE webhook_attempts (
                delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE, number INTEGER NOT NULL,
                at REAL NOT NULL, status INTEGER, body TEXT, error TEXT, latency_ms INTEGER NOT NULL,
                PRIMARY KEY (delivery_id, number)) WITHOUT ROWID;
            """),
        // Nodes and leases: who claimed a delivery or a fan-out, and until when that node is alive. One
        // node uses a SQLite file, but the contract (and its conformance suite) is the same as PostgreSQL's.
        Migration(version: 8, name: "nodes, leases, claims recorded by node", sql: """
            CREATE TABLE nodes (id TEXT PRIMARY KEY, started_at REAL NOT NULL, expires_at REAL NOT NULL);
            CREATE TABLE leases (name TEXT PRIMARY KEY, node TEXT NOT NULL, expires_at REAL NOT NULL);
            ALTER TABLE deliveries ADD COLUMN claimed_by TEXT;
            ALTER TABLE pushes ADD COLUMN fanout_node TEXT;
            """),
        Migration(version: 9, name: "jpush schedules", sql: """
            CREATE TABLE jpush_schedules (
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, id TEXT NOT NULL, name TEXT NOT NULL,
                enabled INTEGER NOT NULL, trigger TEXT NOT NULL, push TEXT NOT NULL, push_id TEXT,
                created_at REAL NOT NULL, updated_at REAL NOT NULL,
                PRIMARY KEY (app_id, id));
            CREATE INDEX jpush_schedules_created ON jpush_schedules(app_id, created_at, id);
            """),
        Migration(version: 11, name: "console sessions", sql: """
            CREATE TABLE console_sessions (
                id_hash BLOB PRIMARY KEY, key_hash BLOB NOT NULL, created_at REAL NOT NULL, last_seen_at REAL NOT NULL) WITHOUT ROWID;
            CREATE INDEX console_sessions_last_seen ON console_sessions(last_seen_at);
            """),
        // A device's history (the console's device page) reads its deliveries by installation: keyed by the
        // installation's integer seq, not its text id, so each delivery row adds a small entry (its cost to
        // the fan-out is measured in docs/performance.md). Credential outcomes are flushed from memory every
        // few seconds, never written per notification.
        Migration(version: 12, name: "deliveries by installation, credential outcomes", sql: """
            CREATE INDEX deliveries_installation ON deliveries(seq, id);
            CREATE TABLE credential_outcomes (
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, environment TEXT NOT NULL,
                accepted_at REAL, rejected_at REAL, rejected_reason TEXT,
                PRIMARY KEY (app_id, environment)) WITHOUT ROWID;
            """),
        // Seqs APNs accepted of fan-out pages not yet written (`journalAccepted`), so a fan-out resuming after
        // a crash re-sends only what was on the wire. Entries go once the cursor passes them, or with the push.
        Migration(version: 14, name: "delivery journal", sql: """
            CREATE TABLE delivery_journal (
                push_id TEXT NOT NULL REFERENCES pushes(id) ON DELETE CASCADE,
                first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, seqs BLOB NOT NULL);
            CREATE INDEX delivery_journal_push ON delivery_journal(push_id, last_seq);
            """),
        // No query reads it: the `updatedSince` listing walks `installations_app_seq` (its order is the cursor's),
        // yet every new installation inserted an entry and every upsert moved one (issue #19: import, registration).
        Migration(version: 15, name: "no index on installations' update time", sql: """
            DROP INDEX installations_app_updated;
            """),
        // The journal moved to a file of its own (`journalMigrations`), so its commits no longer wait behind
        // page writes on this file's one writer. Entries left here mattered only to a fan-out a crash cut
        // short before the upgrade; without them it re-sends what its last page had sent.
        Migration(version: 16, name: "delivery journal in its own file", sql: """
            DROP TABLE delivery_journal;
            """),
        // A webhook's next batch is formed only when it has no batch of events pending. That check walked
        // every delivery the webhook ever had (`webhook_deliveries_webhook`), which are kept for
        // `push.retentionDays`: each claim on the one writer grew with the history, thousands of rows a claim
        // after a few large fan-outs (docs/performance.md, "Round 24"). The pending one is at most one row here.
        Migration(version: 17, name: "a webhook's pending batch of events found without its history", sql: """
            CREATE INDEX webhook_deliveries_pending_events ON webhook_deliveries(webhook_id) WHERE state = 'pending' AND kind = 'events';
            """),
    ]

    /// The delivery journal's own file (`SQLiteStore.journalPath`): seqs APNs accepted of fan-out pages not
    /// yet written (`journalAccepted`). Without a foreign key to `pushes`, which live in the main file:
    /// entries go once the cursor passes them, when the push's fan-out completes, and with purged pushes.
    static let journalMigrations: [Migration] = [
        Migration(version: 1, name: "delivery journal", sql: """
            CREATE TABLE delivery_journal (
                push_id TEXT NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, seqs BLOB NOT NULL);
            CREATE INDEX delivery_journal_push ON delivery_journal(push_id, last_seq);
            """),
    ]
}
