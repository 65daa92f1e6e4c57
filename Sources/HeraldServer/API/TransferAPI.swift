import Foundation
import HeraldHTTP
import HeraldStore

/// Bulk import and export of installations as JSON lines or CSV.
struct TransferAPI {
    let env: ServiceEnvironment
    var routes: [Route] { [] }
}
