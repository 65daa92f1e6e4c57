import Foundation
import HeraldStore
import Synchronization
internal import CSQLite

/// Checkpoints a database's write-ahead log from a connection and serial queue of its own, so that no
/// commit waits for one (issue #19). SQLite's automatic checkpoint runs inside the commit that takes the WAL
/// past 1000 pages, and that commit then waits for the WAL and the database file to be synced: 15–50 ms
/// every ~80 pushes, for a write that otherwise takes well under a millisecond.
///
/// The writer turns the automatic checkpoint off and reports each commit's WAL size through its WAL hook
/// (`attach(to:)`). Past `passiveFrames` that queues a PASSIVE checkpoint here, which copies frames into the
/// database file without taking the writer's lock, so commits go on meanwhile. Once everything is copied,
/// the next commit starts the WAL over from its beginning, so the file stops growing near `passiveFrames`.
///
/// A reader that keeps a snapshot open stops the WAL from starting over. Past `truncateFrames` the
/// checkpoint is a TRUNCATE instead: it waits, for at most this connection's short busy timeout, for the
/// writer and for the readers still on the WAL (new readers read the database file meanwhile), then empties
/// the file. That wait holds the writer's lock, so after a failed attempt the next one waits until the WAL has
/// grown by another `passiveFrames`, rather than stalling every commit.
///
/// Durability is the writer's: commits are as durable as before (`synchronous = NORMAL`, which is durable
/// across a crash of the process), and the checkpoint syncs as the writer's own would have, on another thread.
final class WALCheckpointer: Sendable {
    struct Policy: Sendable {
        /// WAL frames (pages) after a commit past which a PASSIVE checkpoint is queued. SQLite's automatic
        /// checkpoint used 1,000. Each time a checkpoint completes, the next commit starts the WAL over and
        /// syncs its new header (one `fdatasync`, 2-15 ms on this VM's disk) on the writer, inside that
        /// commit: at ~12 frames a push, 1,000 put that sync on ~1.2% of pushes (row 6's p99), 4,000 on ~0.3%
        /// (past the p99), for a WAL of ~16 MB instead of ~4 MB between checkpoints.
        var passiveFrames = 4_000
        /// WAL frames past which the checkpoint is a TRUNCATE: the WAL could not start over (readers kept
        /// using it) and is now ~40 MB at 4 KiB pages.
        var truncateFrames = 10_000
        /// How long a TRUNCATE waits for the writer and readers, holding up the writer meanwhile.
        var truncateWaitMilliseconds: Int32 = 100
    }

    /// What the checkpointer has done; tests look at the mechanism through it.
    struct Stats: Sendable, Equatable {
        var passiveRuns = 0
        var truncateRuns = 0
        var failedRuns = 0
        /// The WAL's size in frames after the last commit.
        var lastCommitWALFrames = 0
    }

    private struct State {
        var scheduled = false
        /// After a TRUNCATE that could not get its locks, the WAL size the next attempt waits for.
        var truncateRetryFrames = 0
        var stats = Stats()
    }

    let policy: Policy
    private let connection: SQLiteConnection
    /// Internal so that tests can hold the checkpointer back (a blocking item on this queue).
    let queue = DispatchQueue(label: "herald.sqlite.checkpointer")
    private let state = Mutex(State())

    /// Opens the checkpointer's connection to `path`, whose journal is already WAL.
    init(path: String, policy: Policy) throws {
        self.policy = policy
        connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: policy.truncateWaitMilliseconds)
        // The checkpointing connection's `synchronous` decides how a checkpoint syncs: the same as the
        // writer's, so a checkpoint here syncs exactly as the writer's automatic one did. The query opens the
        // WAL on this connection, which a checkpoint needs.
        try connection.executeScript("PRAGMA synchronous = NORMAL; SELECT 1 FROM sqlite_schema LIMIT 1;")
    }

    var stats: Stats { state.withLock { $0.stats } }

    /// Turns off `writer`'s automatic checkpoint and has its commits report here instead. The writer keeps
    /// an unretained pointer to this checkpointer: its owner must `detach(from:)` before letting go of it.
    func attach(to writer: SQLiteConnection) throws {
        // The pragma says so explicitly; installing the hook would also replace the automatic checkpoint.
        try writer.executeScript("PRAGMA wal_autocheckpoint = 0")
        writer.setWALHook(context: Unmanaged.passUnretained(self).toOpaque()) { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(walFrames: Int(frames))
            return SQLITE_OK
        }
    }

    func detach(from writer: SQLiteConnection) {
        writer.setWALHook(context: nil, nil)
    }

    /// Called on the writer's queue inside each commit, so it only looks at a number and maybe queues work.
    func committed(walFrames: Int) {
        let queueIt = state.withLock { s in
            s.stats.lastCommitWALFrames = walFrames
            guard walFrames >= policy.passiveFrames, !s.scheduled else { return false }
            s.scheduled = true
            return true
        }
        if queueIt { queue.async { self.checkpoint() } }
    }

    private func checkpoint() {
        // The WAL's size now, not when this was queued: it may have grown meanwhile.
        let (walFrames, truncate) = state.withLock { s in
            s.scheduled = false
            let frames = s.stats.lastCommitWALFrames
            return (frames, frames >= max(policy.truncateFrames, s.truncateRetryFrames))
        }
        if truncate {
            do {
                try connection.checkpoint(.truncate)
                state.withLock { $0.stats.truncateRuns += 1; $0.truncateRetryFrames = 0 }
                return
            } catch {
                // Busy (a long reader) or out of space: copy what can be copied now, try again later.
                state.withLock { $0.stats.failedRuns += 1; $0.truncateRetryFrames = walFrames + policy.passiveFrames }
            }
        }
        do {
            try connection.checkpoint(.passive)
            state.withLock { $0.stats.passiveRuns += 1 }
        } catch {
            // Out of space or an I/O error: the frames stay in the WAL, where commits already made them
            // durable; the next commit past the threshold tries again. The writer reports a full store.
            state.withLock { $0.stats.failedRuns += 1 }
        }
    }

    /// The final checkpoint when the database closes, waiting for any queued one first, so that the WAL
    /// is in the database file and the WAL file is empty. Best effort: SQLite also checkpoints when the last
    /// connection closes, and a WAL left behind is recovered at the next open.
    func close() {
        queue.sync { _ = try? connection.checkpoint(.truncate) }
    }
}
