/// Every operation of the provider, one service per concept. Interfaces (REST, LeanCloud, the first-start
/// bootstrap, the simulator's open reports) call these and map `ServiceError` to their own wire format.
struct Services: Sendable {
    let apps: AppsService
    let credentials: CredentialsService
    let installations: InstallationsService
    let pushes: PushesService
    let opens: OpensService
    let compatIdentities: CompatIdentitiesService
    let jpushSchedules: JPushSchedulesService
    let webhooks: WebhooksService

    init(env: ServiceEnvironment, engine: DeliveryEngine, webhookWorker: WebhookWorker) {
        apps = AppsService(env: env)
        credentials = CredentialsService(env: env)
        installations = InstallationsService(env: env)
        pushes = PushesService(env: env, engine: engine)
        opens = OpensService(env: env)
        compatIdentities = CompatIdentitiesService(env: env)
        jpushSchedules = JPushSchedulesService(env: env, pushes: pushes)
        webhooks = WebhooksService(env: env, worker: webhookWorker)
    }
}
