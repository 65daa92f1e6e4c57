import HeraldHTTP

/// Wire compatibility with JPush's REST API v3, so a backend written against JPush's server SDKs (Java,
/// Python, Node, PHP, Go) pushes through Herald by changing the SDK's hosts and keys: JPush splits its
/// routes over api.jpush.cn, device.jpush.cn and report.jpush.cn; Herald serves them all on one listener.
/// Each request is translated into Herald's own inputs and handled by the same services; every route
/// authenticates with JPush's Basic credentials (or a bearer key) and answers errors in JPush's body.
struct JPushAPI {
    let services: Services
    let authenticator: KeyAuthenticator

    func dialect(_ family: JPushErrors.Family) -> APIDialect {
        APIDialect(authentications: [JPushAuthentication(identities: services.compatIdentities, authenticator: authenticator)]) { error, headers in
            JPushErrors.response(error, headers: headers, family: family)
        }
    }

    var routes: [Route] {
        JPushPushAPI(pushes: services.pushes, installations: services.installations, dialect: dialect(.push)).routes
            + JPushDevicesAPI(installations: services.installations, dialect: dialect(.device)).routes
            + JPushSchedulesAPI(schedules: services.jpushSchedules, dialect: dialect(.schedule)).routes
            + JPushReportsAPI(pushes: services.pushes, dialect: dialect(.push)).routes
            + JPushKeysAPI(identities: services.compatIdentities).routes
    }
}
