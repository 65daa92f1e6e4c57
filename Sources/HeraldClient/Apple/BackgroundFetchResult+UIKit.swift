#if canImport(UIKit) && !os(watchOS)
import UIKit

extension BackgroundFetchResult {
    /// The value to hand to `didReceiveRemoteNotification`'s completion handler.
    public var uiBackgroundFetchResult: UIBackgroundFetchResult {
        switch self {
        case .newData: return .newData
        case .noData: return .noData
        case .failed: return .failed
        }
    }
}
#endif
