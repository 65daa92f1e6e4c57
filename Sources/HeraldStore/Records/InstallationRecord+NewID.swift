import Foundation

extension InstallationRecord {
    /// A new installation id (`TimeOrderedID`): new rows append to the unique index on `id`, and to the
    /// installation-id index when the app sends none.
    public static func newID(now: Date = Date()) -> String {
        TimeOrderedID.next(now: now)
    }
}
