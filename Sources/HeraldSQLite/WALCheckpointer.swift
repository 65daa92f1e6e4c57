import Foundation
import HeraldStore
import Synchronization
internal import CSQLite

/// Checkpoints a database's write-ahead log from a connection and serial queue of its own, so that no
/// commit waits for the bulk of one (issue #19). SQLite's automatic checkpoint runs inside the commit that
/// takes the WAL past 1000 pages, and that commit then waits for the WAL and the database file to be synced:
/// 15–50 ms every ~80 pushes, for a write that otherwise takes well under a millisecond.
///
/// The writer turns the automatic checkpoint off and reports each commit's WAL size through its WAL hook
/// (`attach(to:)`). Past `passiveFrames` that queues a PASSIVE checkpoint here, which copies frames into the
/// database file without taking the writer's lock, so commits go on meanwhile.
///
/// The WAL starts over only at a write that finds every frame copied. Under a steady stream of commits the
/// frames committed while the background checkpoint ran are still uncopied when it ends, so the writer's
/// next commit copies that remainder itself, from its WAL hook (a few frames and two syncs), and the commit
/// after it starts the WAL over: one background checkpoint and one small one on the writer per cycle. (Before,
/// every commit past the threshold queued another background checkpoint, each syncing the WAL and the
/// database for the few frames of the commits since the last: a quarter of a registration's CPU.) To keep
/// the writer's part small, the background checkpoint copies again what was committed during its first pass
/// (`catchUpFrames`), and after a large copy syncs the database file itself before the writer's copy would.
///
/// A reader that keeps a snapshot open stops the WAL from starting over; the next background checkpoint then
/// waits until the WAL has grown by another quarter of `passiveFrames`. Past `truncateFrames` the writer
/// copies nothing and the checkpoint is a TRUNCATE instead: it waits, for at most this connection's short
/// busy timeout, for the writer and for the readers still on the WAL (new readers read the database file
/// meanwhile), then empties the file. That wait holds the writer's lock, so after a failed attempt the next
/// one waits until the WAL has grown by another `passiveFrames`, rather than stalling every commit.
///
/// Durability is the writer's: commits are as durable as before (`synchronous = NORMAL`, which is durable
/// across a crash of the process), and each checkpoint syncs as the writer's own would have.
final class WALCheckpointer: Sendable {
    struct Policy: Sendable {
        /// WAL frames (pages) after a commit past which a PASSIVE checkpoint is queued. SQLite's automatic
        /// checkpoint used 1,000. Each cycle ends with the writer copying the frames committed during the
        /// background checkpoint and the next commit starting the WAL over, a few syncs (2-15 ms each on this
        /// VM's disk) that every commit waits behind. At 4,000 (~16 MB) registrations under load met that
        /// ~12 times a second, a tenth of them slowed by 8-40 ms; at 64,000 (~256 MB of WAL on disk) it comes
        /// every few seconds (docs/performance.md, "Round 8").
        var passiveFrames = 64_000
        /// WAL frames past which the checkpoint is a TRUNCATE: the WAL could not start over (readers kept
        /// using it) and is now ~400 MB at 4 KiB pages.
        var truncateFrames = 100_000
        /// How long a TRUNCATE waits for the writer and readers, holding up the writer meanwhile.
        var truncateWaitMilliseconds: Int32 = 100
        /// A background checkpoint copies again while its last pass left more than this many frames
        /// (committed while it ran), up to `catchUpPasses` more times: what it leaves, the writer copies
        /// itself, holding up every commit for that copy's two syncs.
        var catchUpFrames = 1_000
        var catchUpPasses = 3
    }

    /// What the checkpointer has done; tests look at the mechanism through it.
    struct Stats: Sendable, Equatable {
        var passiveRuns = 0
        var truncateRuns = 0
        /// Remainders copied by the writer after a background checkpoint (`committed(walFrames:on:)`).
        var writerRuns = 0
        /// Checkpoints that failed, with the SQLite result code of the last (a TRUNCATE that could not get past
        /// a reader, a full disk, an I/O error).
        var failedRuns = 0
        var lastFailureCode: Int32 = 0
        /// PASSIVE checkpoints (background or the writer's) that SQLite answered with SQLITE_BUSY: another
        /// connection held, at that instant, a lock the copy needs. A PASSIVE checkpoint waits for nothing by
        /// design; the frames stay in the WAL, where commits made them durable, and the next one copies them.
        var busyRuns = 0
        /// Extra passes of background checkpoints over the frames committed during their first.
        var catchUpRuns = 0
        /// The WAL's size in frames after the last commit.
        var lastCommitWALFrames = 0
    }

    private struct State {
        /// A background checkpoint is queued or running: no other is queued, and the writer copies nothing.
        var busy = false
        /// The WAL size at which the next background checkpoint is queued: `passiveFrames` in a WAL that
        /// started over, more after a checkpoint that did not let it start over.
        var nextRunFrames: Int
        /// A background checkpoint ended since the WAL last started over: the writer's next commit copies the
        /// frames committed meanwhile, unless the WAL started over at that commit.
        var remainderDue = false
        /// After a TRUNCATE that could not get its locks, the WAL size the next attempt waits for.
        var truncateRetryFrames = 0
        var stats = Stats()
    }

    let policy: Policy
    private let connection: SQLiteConnection
    /// The database file, synced here after the background passes (`syncDatabaseFile`).
    private let path: String
    /// Internal so that tests can hold the checkpointer back (a blocking item on this queue).
    let queue = DispatchQueue(label: "herald.sqlite.checkpointer")
    private let state: Mutex<State>

    /// Opens the checkpointer's connection to `path`, whose journal is already WAL.
    init(path: String, policy: Policy) throws {
        self.policy = policy
        self.path = path
        state = Mutex(State(nextRunFrames: policy.passiveFrames))
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
        writer.setWALHook(context: Unmanaged.passUnretained(self).toOpaque()) { context, db, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(walFrames: Int(frames), on: db)
            return SQLITE_OK
        }
    }

    func detach(from writer: SQLiteConnection) {
        writer.setWALHook(context: nil, nil)
    }

    /// Called on the writer's queue inside each commit, with the writer's handle: it looks at a number and
    /// maybe queues work, except once per background checkpoint, when it copies the remainder.
    func committed(walFrames: Int, on writer: OpaquePointer?) {
        enum Next { case nothing, queue, copyRemainder }
        let next = state.withLock { s -> Next in
            s.stats.lastCommitWALFrames = walFrames
            if walFrames < policy.passiveFrames {
                // Started over (or not yet that large): the next cycle begins.
                s.remainderDue = false
                s.nextRunFrames = policy.passiveFrames
                return .nothing
            }
            if s.busy { return .nothing }
            let growth = max(1, policy.passiveFrames / 4)
            // Past `truncateFrames` readers held the WAL; the TRUNCATE (which also shrinks the file) takes over.
            if s.remainderDue, walFrames < policy.truncateFrames {
                s.remainderDue = false
                s.nextRunFrames = walFrames + growth
                return .copyRemainder
            }
            guard walFrames >= s.nextRunFrames else { return .nothing }
            s.busy = true
            s.nextRunFrames = walFrames + growth
            return .queue
        }
        switch next {
        case .nothing: break
        case .queue: queue.async { self.checkpoint() }
        case .copyRemainder:
            // What SQLite's automatic checkpoint does from this hook, for the few frames the background one
            // could not see. PASSIVE: a reader's old snapshot only limits it. A failure (a full disk) leaves the
            // frames in the WAL, where the commit made them durable; the next background checkpoint retries.
            var log: Int32 = 0
            var copied: Int32 = 0
            let rc = sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
            state.withLock { s in
                if rc == SQLITE_OK { s.stats.writerRuns += 1 } else { s.stats.recordFailure(rc, passive: true) }
            }
        }
    }

    private func checkpoint() {
        // The WAL's size now, not when this was queued: it may have grown meanwhile.
        defer { state.withLock { $0.busy = false } }
        let (walFrames, truncate) = state.withLock { s in
            let frames = s.stats.lastCommitWALFrames
            return (frames, frames >= max(policy.truncateFrames, s.truncateRetryFrames))
        }
        if truncate {
            do {
                try connection.checkpoint(.truncate)
                state.withLock { $0.stats.truncateRuns += 1; $0.truncateRetryFrames = 0; $0.remainderDue = false }
                return
            } catch {
                // Busy (a long reader) or out of space: copy what can be copied now, try again later.
                state.withLock { s in
                    s.stats.recordFailure(error, passive: false)
                    s.truncateRetryFrames = walFrames + policy.passiveFrames
                }
            }
        }
        do {
            // A pass copies the WAL as it was when the pass began; the writer's hook says how far it is now.
            var copied = try connection.checkpoint(.passive).checkpointed
            var extra = 0
            while state.withLock({ $0.stats.lastCommitWALFrames }) - copied > policy.catchUpFrames, extra < policy.catchUpPasses {
                let before = copied
                // A pass that cannot run (busy: the writer started the WAL over meanwhile, after a pass that
                // copied everything) leaves what is left to the writer, as without catch-up passes.
                guard let pass = try? connection.checkpoint(.passive) else { break }
                copied = pass.checkpointed
                extra += 1
                if copied <= before { break }   // a reader's snapshot holds the rest back: passes cannot help
            }
            if copied >= policy.catchUpFrames { syncDatabaseFile() }   // only a large copy makes the writer's sync slow
            state.withLock { $0.stats.passiveRuns += 1; $0.stats.catchUpRuns += extra; $0.remainderDue = true }
        } catch {
            // Out of space or an I/O error: the frames stay in the WAL, where commits already made them
            // durable; the next commit past the threshold tries again. The writer reports a full store.
            state.withLock { $0.stats.recordFailure(error, passive: true) }
        }
    }

    /// SQLite syncs the database file at the end of a checkpoint only when it copied the whole WAL, and under
    /// steady commits a background pass never does (frames came in while it ran). The writer's copy of the
    /// remainder then synced everything the passes had copied, 20-40 ms on this VM's disk with every commit
    /// waiting behind it. Synced here, the writer's sync finds only the remainder's pages. Best effort: a
    /// failure leaves that work to the writer's sync, as before.
    private func syncDatabaseFile() {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fdatasync(fd)
        Glibc.close(fd)
    }

    /// The final checkpoint when the database closes, waiting for any queued one first, so that the WAL
    /// is in the database file and the WAL file is empty. Best effort: SQLite also checkpoints when the last
    /// connection closes, and a WAL left behind is recovered at the next open.
    func close() {
        queue.sync { _ = try? connection.checkpoint(.truncate) }
    }
}

extension WALCheckpointer.Stats {
    /// Counts a checkpoint that did not complete: a PASSIVE one that found a lock taken is busy, not failed.
    mutating func recordFailure(_ code: Int32, passive: Bool) {
        if passive && code & 0xff == SQLITE_BUSY { busyRuns += 1; return }
        failedRuns += 1
        lastFailureCode = code
    }

    /// The same for a checkpoint that threw: SQLite's code when it was SQLite's error.
    mutating func recordFailure(_ error: any Error, passive: Bool) {
        recordFailure((error as? SQLiteError)?.code ?? SQLITE_ERROR, passive: passive)
    }
}
