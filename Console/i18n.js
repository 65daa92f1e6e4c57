// Every string the console shows, in English and Simplified Chinese. The language comes from the
// browser (navigator.languages) unless the user picked one (remembered in localStorage: a preference,
// never a credential).
const en = {
  'app.name': 'Herald console',
  'nav.main': 'Main', 'nav.overview': 'Overview', 'nav.compose': 'Compose', 'nav.pushes': 'Pushes', 'nav.devices': 'Devices',
  'nav.apps': 'Apps & credentials', 'nav.simulator': 'Simulator', 'nav.signOut': 'Sign out', 'nav.language': 'Language', 'nav.app': 'App',
  'role.admin': 'admin', 'role.master': 'master key', 'yes': 'yes', 'no': 'no',
  'signin.key': 'Admin or master key', 'signin.hint': 'The key is exchanged for a session cookie; the browser never stores the key.',
  'signin.submit': 'Sign in', 'signin.expired': 'Your session ended; sign in again.', 'signin.signedOut': 'Signed out.',
  'status.scheduled': 'scheduled', 'status.queued': 'queued', 'status.sending': 'sending', 'status.done': 'done', 'status.cancelled': 'cancelled', 'status.failed': 'failed',
  'counts.targeted': 'Targeted', 'counts.sent': 'Sent', 'counts.failed': 'Failed', 'counts.retired': 'Retired', 'counts.opened': 'Opened',
  'counts.cancelled': 'Cancelled', 'counts.pending': 'Pending',
  'list.more': 'More', 'list.end': 'End of the list.',
  'compose.title.form': 'New push', 'compose.target': 'Audience', 'compose.audience': 'Send to',
  'compose.mode.all': 'All devices', 'compose.mode.tags': 'Tags only', 'compose.mode.aliases': 'Aliases', 'compose.mode.userIds': 'User ids',
  'compose.mode.tokens': 'Device tokens', 'compose.mode.installationIds': 'Installation ids',
  'compose.values': 'Values', 'compose.values.hint': 'Separate with commas or new lines.',
  'compose.tagsAny': 'Tags (any of)', 'compose.tagsAll': 'Tags (all of)', 'compose.tagsNone': 'Tags (none of)',
  'compose.filters': 'Filters: environment, locale, app version, time zone, properties', 'compose.environment': 'Environment', 'compose.both': 'Both',
  'compose.filterLocale': 'Locale', 'compose.filterVersion': 'App version', 'compose.filterZone': 'Time zone', 'compose.filterProps': 'Properties (JSON)',
  'compose.content': 'Content', 'compose.title': 'Title', 'compose.subtitle': 'Subtitle', 'compose.body': 'Body',
  'compose.variant': 'Localized variant', 'compose.locale': 'Locale', 'compose.addVariant': 'Add localized variant', 'compose.removeVariant': 'Remove variant',
  'compose.badge': 'Badge', 'compose.badge.none': 'Leave unchanged', 'compose.badge.set': 'Set to', 'compose.badge.increment': 'Increment by',
  'compose.badge.decrement': 'Decrement by', 'compose.badgeValue': 'Badge number', 'compose.sound': 'Sound', 'compose.critical': 'Critical alert',
  'compose.volume': 'Critical volume', 'compose.more': 'More: category, thread, interruption level, relevance, background, attachment, custom data',
  'compose.category': 'Category', 'compose.threadId': 'Thread id', 'compose.interruption': 'Interruption level', 'compose.relevance': 'Relevance score',
  'compose.attachment': 'Attachment URL (mutable-content)', 'compose.data': 'Custom data (JSON object)', 'compose.data.hint': 'Top-level keys beside "aps".',
  'compose.data.object': 'Custom data must be a JSON object.', 'compose.json.invalid': 'Not valid JSON: {error}',
  'compose.options': 'Delivery', 'compose.pushType': 'Push type', 'compose.priority': 'Priority', 'compose.priority.auto': 'Automatic',
  'compose.ttl': 'Time to live (s)', 'compose.ttl.hint': 'Or an expiration time, not both.', 'compose.expiration': 'Expires at', 'compose.collapseId': 'Collapse id',
  'compose.when': 'When', 'compose.when.now': 'Now', 'compose.when.at': 'At a time', 'compose.when.local': "At a local time in each device's zone",
  'compose.sendAt': 'Send at', 'compose.localTime': 'Local time', 'compose.localTime.hint': 'HH:MM in each device’s time zone.',
  'compose.idempotency': 'Idempotency key', 'compose.idempotency.hint': 'Sending twice with the same key sends once.',
  'compose.send': 'Send push', 'compose.sendTest': 'Send to this test device', 'compose.testToken': 'Test device token',
  'compose.testToken.placeholder': 'hex device token', 'compose.testToken.missing': 'Enter the token of the test device.',
  'compose.sent': 'Push {id} accepted.', 'compose.preview': 'Preview', 'compose.audienceCount': 'Audience', 'compose.devices': '{n} devices', 'compose.devices.one': '{n} device',
  'compose.unresolved': 'not found: {list}', 'compose.invalid': 'Fix the highlighted field to see the audience and payload.',
  'compose.start': 'Write a title or body (or set a badge, sound or data) to see the audience and payload.',
  'compose.payload': 'Payload', 'compose.previewLocale': 'Variant', 'compose.default': 'Default', 'compose.size': 'Payload size',
  'compose.bytes': '{bytes} of {limit} bytes', 'compose.headers': 'APNs headers', 'compose.lockScreen': 'Lock screen',
  'phone.now': 'now', 'phone.badge': 'Badge: {n}', 'phone.background': 'Background push: nothing shown', 'phone.nothing': 'Nothing visible',
  'pushes.any': 'Any', 'pushes.status': 'Status', 'pushes.filter': 'Filter', 'pushes.id': 'Push', 'pushes.created': 'Created',
  'pushes.statusCol': 'Status', 'pushes.none': 'No pushes yet.',
  'push.title': 'Push', 'push.progress': 'Progress', 'push.created': 'created', 'push.sendAt': 'sends at', 'push.finished': 'finished',
  'push.paused': 'Delivery paused: {reason}.', 'push.cancel': 'Cancel push', 'push.cancel.confirm': 'Cancel this push? Deliveries not yet sent are dropped.',
  'push.cancelled': 'Push cancelled.', 'push.failures': 'Failures by reason', 'push.noFailures': 'No failures.', 'push.reason': 'Reason', 'push.outcome': 'APNs status or reason',
  'push.count': 'Count', 'push.meaning': 'What it means', 'push.todo': 'What to do', 'push.deliveries': 'Per-device outcomes', 'push.state': 'State',
  'push.installation': 'Installation', 'push.attempts': 'Attempts', 'push.updated': 'Updated', 'push.noDeliveries': 'No deliveries.',
  'devices.by': 'Find by', 'devices.by.deviceToken': 'Device token', 'devices.by.installationId': 'Installation id', 'devices.by.alias': 'Alias',
  'devices.by.userId': 'User id', 'devices.by.tag': 'Tag', 'devices.value': 'Value', 'devices.find': 'Find', 'devices.value.missing': 'Enter what to look for.',
  'devices.id': 'Installation', 'devices.token': 'Token', 'devices.tags': 'Tags', 'devices.active': 'Active', 'devices.retired': 'retired: {reason}',
  'devices.none': 'No device found.', 'devices.device': 'Device', 'devices.addTag': 'New tag', 'devices.add': 'Add tag', 'devices.alias': 'Alias',
  'devices.save': 'Save alias', 'devices.saved': 'Saved.', 'devices.removeTag': 'Remove tag {tag}', 'devices.noTags': 'No tags.',
  'devices.lastSeen': 'Last seen', 'devices.history': 'Recent pushes', 'devices.history.push': 'Push', 'devices.history.created': 'Created',
  'devices.history.none': 'No push has targeted this device yet.', 'devices.test': 'Send a test push', 'devices.test.title': 'Test title', 'devices.test.default': 'Test from Herald',
  'apps.none': 'No app yet: create one under Apps & credentials.', 'apps.create': 'Create app', 'apps.name': 'Name', 'apps.timeZone': 'Default time zone',
  'apps.paused': 'Paused', 'apps.pausedBecause': 'yes: {reason}', 'apps.created': 'Created', 'apps.keys': 'Keys', 'apps.scope': 'Scope', 'apps.hint': 'Starts with',
  'apps.revoked': 'Revoked', 'apps.rotate': 'Rotate {scope} key', 'apps.rotate.confirm': 'Issue a new {scope} key? The current one stops working at once.',
  'apps.newKey': 'New {scope} key (shown once; store it now):', 'apps.rotated.self': 'Your session continues until it expires; sign in with the new key next time.',
  'apps.credentials': 'APNs credentials', 'apps.environment': 'Environment', 'apps.type': 'Type', 'apps.updated': 'Updated',
  'apps.cred.state': 'State', 'apps.cred.accepted': 'Working', 'apps.cred.rejected': 'Rejected', 'apps.cred.unused': 'Not used yet',
  'apps.cred.lastAccepted': 'Last accepted by APNs', 'apps.cred.lastRejected': 'Last rejected by APNs ({reason})',
  'apps.noCredentials': 'No credential: pushes go nowhere until one is uploaded (or the built-in simulator made one).',
  'apps.upload': 'Upload a credential', 'apps.p8': 'Token key (.p8)', 'apps.p12': 'Certificate (.p12)', 'apps.file': 'File', 'apps.passphrase': 'Passphrase (.p12)',
  'apps.uploadButton': 'Upload', 'apps.uploaded': 'Credential stored (sealed).', 'apps.file.missing': 'Choose the .p8 or .p12 file.',
  'apps.copy': 'Copy', 'apps.copied': 'Copied.', 'apps.createdToast': 'App {name} created.',
  'apps.compat': 'LeanCloud and JPush identities', 'apps.compat.service': 'Service', 'apps.compat.publicId': 'App ID / App Key',
  'apps.compat.hints': 'Secrets start with', 'apps.compat.notSet': 'Not set. Set it with:',
  'apps.compat.hint': 'Apps and backends written for LeanCloud or JPush authenticate with these; the secrets are set with the CLI and never shown.',
  'overview.paused': 'Delivery for this app is paused: {reason}.', 'overview.paused.todo': 'Upload a working credential under Apps & credentials to resume.',
  'overview.active': 'Active installations', 'overview.retired': 'Retired installations', 'overview.queue': 'Deliveries queued',
  'overview.chart': 'Deliveries per day', 'overview.chart.hour': 'Deliveries per hour', 'overview.byDay': 'Last 14 days',
  'overview.byHour': 'Last 24 hours', 'overview.interval': 'Period', 'overview.pausedApps': 'Other paused apps', 'overview.since': 'Since', 'overview.reasons': 'Failures by reason', 'overview.recent': 'Recent pushes',
  'nav.webhooks': 'Webhooks', 'webhooks.list': 'Webhooks of this app', 'webhooks.url': 'URL', 'webhooks.events': 'Events', 'webhooks.state': 'State',
  'webhooks.description': 'Description', 'webhooks.none': 'No webhook yet: add one below.', 'webhooks.enabled': 'enabled', 'webhooks.disabled': 'disabled',
  'webhooks.disabledBecause': 'disabled: {reason}', 'webhooks.optIn': '(opt-in: one event per failed device)', 'webhooks.create': 'Add webhook',
  'webhooks.url.hint': 'https://, or http:// to localhost; Herald POSTs signed batches of events to it.', 'webhooks.enabledBox': 'Enabled',
  'webhooks.events.missing': 'Choose at least one event type.', 'webhooks.created': 'Webhook added.',
  'webhooks.secret.new': 'Signing secret of webhook {id} (shown once):', 'webhooks.secret.rotated': 'New signing secret (shown once; the old one no longer signs):',
  'webhooks.secret.store': 'Store it now with your receiver: it verifies Herald-Signature and cannot be shown again.',
  'webhooks.webhook': 'Webhook', 'webhooks.failureRun': 'Failed deliveries in a row', 'webhooks.enable': 'Enable', 'webhooks.disable': 'Disable',
  'webhooks.ping': 'Send test ping', 'webhooks.pinged': 'Ping queued: its attempt appears below.', 'webhooks.rotate': 'Rotate secret',
  'webhooks.rotate.confirm': 'Issue a new signing secret? The current one stops signing at once.', 'webhooks.delete': 'Delete webhook',
  'webhooks.delete.confirm': 'Delete the webhook to {url}? Its undelivered events and its delivery history are deleted too.', 'webhooks.deleted': 'Webhook deleted.',
  'webhooks.deliveries': 'Deliveries', 'webhooks.delivery': 'Delivery', 'webhooks.kind': 'Kind', 'webhooks.attempts': 'Attempts (status or error, latency, answer)',
  'webhooks.noDeliveries': 'No delivery yet.', 'webhooks.kind.events': 'events', 'webhooks.kind.ping': 'ping', 'webhooks.kind.redelivery': 'redelivery',
  'webhooks.eventCount': '{n} events', 'webhooks.state.pending': 'pending', 'webhooks.state.delivered': 'delivered', 'webhooks.state.failed': 'failed',
  'webhooks.noStatus': 'no answer', 'webhooks.latency': '{ms} ms', 'webhooks.answer': 'First bytes of the answer', 'webhooks.nextAttempt': 'next attempt',
  'webhooks.redeliver': 'Redeliver', 'webhooks.redeliver.label': 'Redeliver {id}', 'webhooks.redelivered': 'Redelivery queued.',
  'sim.devices': 'Simulated devices', 'sim.phone': 'Phone', 'sim.count': '{n} received', 'sim.noDevices': 'No simulated device yet (herald device create).',
  'sim.empty': 'Nothing received yet: send a push.', 'sim.open': 'Open', 'sim.opened': 'Opened', 'sim.openedToast': 'Open reported to Herald.',
  'sim.off': 'This herald serve runs no built-in simulator.',
};

const zh = {
  'app.name': 'Herald 控制台',
  'nav.main': '主导航', 'nav.overview': '概览', 'nav.compose': '撰写推送', 'nav.pushes': '推送记录', 'nav.devices': '设备',
  'nav.apps': '应用与证书', 'nav.simulator': '模拟器', 'nav.signOut': '退出登录', 'nav.language': '语言', 'nav.app': '应用',
  'role.admin': '管理员', 'role.master': '主密钥', 'yes': '是', 'no': '否',
  'signin.key': '管理员密钥或主密钥', 'signin.hint': '密钥仅用于换取会话 Cookie，浏览器不会保存密钥。',
  'signin.submit': '登录', 'signin.expired': '会话已结束，请重新登录。', 'signin.signedOut': '已退出登录。',
  'status.scheduled': '已排期', 'status.queued': '排队中', 'status.sending': '发送中', 'status.done': '已完成', 'status.cancelled': '已取消', 'status.failed': '失败',
  'counts.targeted': '目标', 'counts.sent': '已发送', 'counts.failed': '失败', 'counts.retired': '已停用', 'counts.opened': '已打开',
  'counts.cancelled': '已取消', 'counts.pending': '待发送',
  'list.more': '加载更多', 'list.end': '已到列表末尾。',
  'compose.title.form': '新推送', 'compose.target': '推送对象', 'compose.audience': '发送给',
  'compose.mode.all': '全部设备', 'compose.mode.tags': '仅按标签', 'compose.mode.aliases': '别名', 'compose.mode.userIds': '用户 ID',
  'compose.mode.tokens': '设备令牌', 'compose.mode.installationIds': '安装 ID',
  'compose.values': '取值', 'compose.values.hint': '用逗号或换行分隔。',
  'compose.tagsAny': '标签（任一）', 'compose.tagsAll': '标签（全部）', 'compose.tagsNone': '标签（排除）',
  'compose.filters': '筛选：环境、语言地区、应用版本、时区、属性', 'compose.environment': '环境', 'compose.both': '全部',
  'compose.filterLocale': '语言地区', 'compose.filterVersion': '应用版本', 'compose.filterZone': '时区', 'compose.filterProps': '属性（JSON）',
  'compose.content': '内容', 'compose.title': '标题', 'compose.subtitle': '副标题', 'compose.body': '正文',
  'compose.variant': '本地化版本', 'compose.locale': '语言地区', 'compose.addVariant': '添加本地化版本', 'compose.removeVariant': '删除此版本',
  'compose.badge': '角标', 'compose.badge.none': '不变', 'compose.badge.set': '设为', 'compose.badge.increment': '增加',
  'compose.badge.decrement': '减少', 'compose.badgeValue': '角标数字', 'compose.sound': '声音', 'compose.critical': '重要警告（Critical）',
  'compose.volume': '重要警告音量', 'compose.more': '更多：类别、线程、打断级别、相关度、后台推送、附件、自定义数据',
  'compose.category': '类别', 'compose.threadId': '线程 ID', 'compose.interruption': '打断级别', 'compose.relevance': '相关度',
  'compose.attachment': '附件 URL（mutable-content）', 'compose.data': '自定义数据（JSON 对象）', 'compose.data.hint': '与 "aps" 同级的键。',
  'compose.data.object': '自定义数据必须是 JSON 对象。', 'compose.json.invalid': 'JSON 无效：{error}',
  'compose.options': '投递选项', 'compose.pushType': '推送类型', 'compose.priority': '优先级', 'compose.priority.auto': '自动',
  'compose.ttl': '有效期（秒）', 'compose.ttl.hint': '或设置过期时间，二选一。', 'compose.expiration': '过期时间', 'compose.collapseId': '合并 ID',
  'compose.when': '发送时间', 'compose.when.now': '立即', 'compose.when.at': '指定时间', 'compose.when.local': '按各设备所在时区的本地时间',
  'compose.sendAt': '发送于', 'compose.localTime': '本地时间', 'compose.localTime.hint': '各设备时区内的 HH:MM。',
  'compose.idempotency': '幂等键', 'compose.idempotency.hint': '使用同一幂等键重复提交只会发送一次。',
  'compose.send': '发送推送', 'compose.sendTest': '发送到此测试设备', 'compose.testToken': '测试设备令牌',
  'compose.testToken.placeholder': '十六进制设备令牌', 'compose.testToken.missing': '请输入测试设备的令牌。',
  'compose.sent': '推送 {id} 已受理。', 'compose.preview': '预览', 'compose.audienceCount': '目标人群', 'compose.devices': '{n} 台设备', 'compose.devices.one': '{n} 台设备',
  'compose.unresolved': '未找到：{list}', 'compose.invalid': '请先修正标出的字段，再查看人群与载荷。',
  'compose.start': '填写标题或正文（或设置角标、声音、数据）后即可查看人群与载荷。',
  'compose.payload': '载荷', 'compose.previewLocale': '版本', 'compose.default': '默认', 'compose.size': '载荷大小',
  'compose.bytes': '{bytes} / {limit} 字节', 'compose.headers': 'APNs 请求头', 'compose.lockScreen': '锁屏效果',
  'phone.now': '现在', 'phone.badge': '角标：{n}', 'phone.background': '后台推送：不显示内容', 'phone.nothing': '无可见内容',
  'pushes.any': '全部', 'pushes.status': '状态', 'pushes.filter': '筛选', 'pushes.id': '推送', 'pushes.created': '创建时间',
  'pushes.statusCol': '状态', 'pushes.none': '还没有推送。',
  'push.title': '推送', 'push.progress': '进度', 'push.created': '创建于', 'push.sendAt': '发送于', 'push.finished': '完成于',
  'push.paused': '投递已暂停：{reason}。', 'push.cancel': '取消推送', 'push.cancel.confirm': '确定取消此推送？尚未发送的投递将被丢弃。',
  'push.cancelled': '推送已取消。', 'push.failures': '失败原因', 'push.noFailures': '没有失败。', 'push.reason': '原因', 'push.outcome': 'APNs 状态或原因',
  'push.count': '数量', 'push.meaning': '含义', 'push.todo': '处理建议', 'push.deliveries': '各设备结果', 'push.state': '状态',
  'push.installation': '安装', 'push.attempts': '尝试次数', 'push.updated': '更新时间', 'push.noDeliveries': '没有投递记录。',
  'devices.by': '查找方式', 'devices.by.deviceToken': '设备令牌', 'devices.by.installationId': '安装 ID', 'devices.by.alias': '别名',
  'devices.by.userId': '用户 ID', 'devices.by.tag': '标签', 'devices.value': '查找内容', 'devices.find': '查找', 'devices.value.missing': '请输入要查找的内容。',
  'devices.id': '安装', 'devices.token': '令牌', 'devices.tags': '标签', 'devices.active': '有效', 'devices.retired': '已停用：{reason}',
  'devices.none': '未找到设备。', 'devices.device': '设备', 'devices.addTag': '新标签', 'devices.add': '添加标签', 'devices.alias': '别名',
  'devices.save': '保存别名', 'devices.saved': '已保存。', 'devices.removeTag': '删除标签 {tag}', 'devices.noTags': '没有标签。',
  'devices.lastSeen': '最近活跃', 'devices.history': '最近的推送', 'devices.history.push': '推送', 'devices.history.created': '创建时间',
  'devices.history.none': '还没有推送发往此设备。', 'devices.test': '发送测试推送', 'devices.test.title': '测试标题', 'devices.test.default': '来自 Herald 的测试',
  'apps.none': '还没有应用：请在“应用与证书”中创建。', 'apps.create': '创建应用', 'apps.name': '名称', 'apps.timeZone': '默认时区',
  'apps.paused': '已暂停', 'apps.pausedBecause': '是：{reason}', 'apps.created': '创建时间', 'apps.keys': '密钥', 'apps.scope': '类型', 'apps.hint': '开头',
  'apps.revoked': '吊销时间', 'apps.rotate': '轮换 {scope} 密钥', 'apps.rotate.confirm': '签发新的 {scope} 密钥？当前密钥将立即失效。',
  'apps.newKey': '新的 {scope} 密钥（只显示一次，请立即保存）：', 'apps.rotated.self': '当前会话在过期前仍然有效；下次请用新密钥登录。',
  'apps.credentials': 'APNs 证书', 'apps.environment': '环境', 'apps.type': '类型', 'apps.updated': '更新时间',
  'apps.cred.state': '状态', 'apps.cred.accepted': '正常', 'apps.cred.rejected': '被拒绝', 'apps.cred.unused': '尚未使用',
  'apps.cred.lastAccepted': 'APNs 最近接受', 'apps.cred.lastRejected': 'APNs 最近拒绝（{reason}）',
  'apps.noCredentials': '没有证书：上传证书之前推送无法送达（或由内置模拟器生成）。',
  'apps.upload': '上传证书', 'apps.p8': '令牌密钥（.p8）', 'apps.p12': '证书（.p12）', 'apps.file': '文件', 'apps.passphrase': '密码（.p12）',
  'apps.uploadButton': '上传', 'apps.uploaded': '证书已加密保存。', 'apps.file.missing': '请选择 .p8 或 .p12 文件。',
  'apps.copy': '复制', 'apps.copied': '已复制。', 'apps.createdToast': '已创建应用 {name}。',
  'apps.compat': 'LeanCloud 与极光推送身份', 'apps.compat.service': '服务', 'apps.compat.publicId': 'App ID / App Key',
  'apps.compat.hints': '密钥开头', 'apps.compat.notSet': '未设置。设置命令：',
  'apps.compat.hint': '为 LeanCloud 或极光推送编写的应用和后端用它们认证；密钥通过命令行设置，不会显示。',
  'overview.paused': '此应用的投递已暂停：{reason}。', 'overview.paused.todo': '请在“应用与证书”中上传可用的证书以恢复。',
  'overview.active': '有效安装', 'overview.retired': '已停用安装', 'overview.queue': '排队中的投递',
  'overview.chart': '每日投递', 'overview.chart.hour': '每小时投递', 'overview.byDay': '最近 14 天',
  'overview.byHour': '最近 24 小时', 'overview.interval': '时间范围', 'overview.pausedApps': '其他已暂停的应用', 'overview.since': '开始时间', 'overview.reasons': '失败原因', 'overview.recent': '最近的推送',
  'nav.webhooks': 'Webhook', 'webhooks.list': '此应用的 Webhook', 'webhooks.url': 'URL', 'webhooks.events': '事件', 'webhooks.state': '状态',
  'webhooks.description': '说明', 'webhooks.none': '还没有 Webhook：请在下方添加。', 'webhooks.enabled': '已启用', 'webhooks.disabled': '已停用',
  'webhooks.disabledBecause': '已停用：{reason}', 'webhooks.optIn': '（需主动订阅：每台失败设备一个事件）', 'webhooks.create': '添加 Webhook',
  'webhooks.url.hint': 'https://，或指向 localhost 的 http://；Herald 会向它 POST 签名的事件批次。', 'webhooks.enabledBox': '启用',
  'webhooks.events.missing': '请至少选择一种事件类型。', 'webhooks.created': 'Webhook 已添加。',
  'webhooks.secret.new': 'Webhook {id} 的签名密钥（只显示一次）：', 'webhooks.secret.rotated': '新的签名密钥（只显示一次；旧密钥不再用于签名）：',
  'webhooks.secret.store': '请立即保存到接收端：用于校验 Herald-Signature，之后无法再次显示。',
  'webhooks.webhook': 'Webhook', 'webhooks.failureRun': '连续失败的投递', 'webhooks.enable': '启用', 'webhooks.disable': '停用',
  'webhooks.ping': '发送测试 ping', 'webhooks.pinged': 'Ping 已排队：尝试结果显示在下方。', 'webhooks.rotate': '轮换密钥',
  'webhooks.rotate.confirm': '签发新的签名密钥？当前密钥将立即停止签名。', 'webhooks.delete': '删除 Webhook',
  'webhooks.delete.confirm': '删除指向 {url} 的 Webhook？其未投递的事件和投递记录也会一并删除。', 'webhooks.deleted': 'Webhook 已删除。',
  'webhooks.deliveries': '投递记录', 'webhooks.delivery': '投递', 'webhooks.kind': '类型', 'webhooks.attempts': '尝试（状态或错误、耗时、响应）',
  'webhooks.noDeliveries': '还没有投递。', 'webhooks.kind.events': '事件', 'webhooks.kind.ping': 'ping', 'webhooks.kind.redelivery': '重新投递',
  'webhooks.eventCount': '{n} 个事件', 'webhooks.state.pending': '待投递', 'webhooks.state.delivered': '已送达', 'webhooks.state.failed': '失败',
  'webhooks.noStatus': '无响应', 'webhooks.latency': '{ms} 毫秒', 'webhooks.answer': '响应的前若干字节', 'webhooks.nextAttempt': '下次尝试',
  'webhooks.redeliver': '重新投递', 'webhooks.redeliver.label': '重新投递 {id}', 'webhooks.redelivered': '重新投递已排队。',
  'sim.devices': '模拟设备', 'sim.phone': '手机', 'sim.count': '已收到 {n} 条', 'sim.noDevices': '还没有模拟设备（herald device create）。',
  'sim.empty': '尚未收到通知：发送一条推送试试。', 'sim.open': '打开', 'sim.opened': '已打开', 'sim.openedToast': '已向 Herald 报告打开。',
  'sim.off': '此 herald serve 没有运行内置模拟器。',
};

// APNs reasons: what each means and what to do, in both languages.
const reasons = {
  en: {
    BadDeviceToken: ['The token is not a valid token for this topic and environment.', 'Check the environment (sandbox vs production); the device re-registers with its current token.'],
    Unregistered: ['The app was removed from the device (or the token expired).', 'Nothing: Herald retired the installation; it comes back when the app registers again.'],
    DeviceTokenNotForTopic: ['The token belongs to another app (bundle id).', 'Check the app topic and which app registered this token.'],
    BadTopic: ['The apns-topic is not allowed.', 'Set the app’s topic to its bundle id (with the right suffix for the push type).'],
    TopicDisallowed: ['This credential may not push to the topic.', 'Use a credential of the team that owns the bundle id.'],
    PayloadTooLarge: ['The payload exceeds Apple’s limit.', 'Shorten the alert or custom data (4096 bytes; 5120 for VoIP).'],
    TooManyRequests: ['Too many pushes to this device too quickly.', 'Herald retries later; send less often to one device.'],
    ExpiredProviderToken: ['The signing token was too old.', 'Herald renews it automatically; check the server clock.'],
    InvalidProviderToken: ['The .p8 key, key id or team id is wrong.', 'Upload the right credential; delivery for the app is paused until then.'],
    BadCertificate: ['The certificate is not accepted.', 'Upload a valid push certificate for this environment.'],
    BadCertificateEnvironment: ['The certificate is for the other environment.', 'Upload the certificate of this environment.'],
    ExpiredToken: ['The token has expired.', 'The app must register again.'],
    InternalServerError: ['APNs failed internally.', 'Herald retries; nothing to do unless it persists.'],
    ServiceUnavailable: ['APNs is unavailable.', 'Herald retries later.'],
    Expired: ['The push expired before it could be sent.', 'Use a longer time to live.'],
  },
  zh: {
    BadDeviceToken: ['该令牌对此主题和环境无效。', '检查环境（sandbox 或 production）；设备会用当前令牌重新注册。'],
    Unregistered: ['应用已从设备上删除（或令牌已过期）。', '无需处理：Herald 已停用该安装，应用重新注册后会恢复。'],
    DeviceTokenNotForTopic: ['该令牌属于另一个应用（Bundle ID）。', '检查应用主题以及注册该令牌的应用。'],
    BadTopic: ['apns-topic 不被允许。', '将应用主题设为其 Bundle ID（按推送类型加正确后缀）。'],
    TopicDisallowed: ['此证书无权推送到该主题。', '使用拥有该 Bundle ID 的团队的证书。'],
    PayloadTooLarge: ['载荷超过 Apple 的上限。', '缩短提醒或自定义数据（4096 字节；VoIP 为 5120）。'],
    TooManyRequests: ['对同一设备推送过于频繁。', 'Herald 会稍后重试；请降低对单个设备的推送频率。'],
    ExpiredProviderToken: ['签名令牌过旧。', 'Herald 会自动更新；请检查服务器时钟。'],
    InvalidProviderToken: ['.p8 密钥、Key ID 或 Team ID 错误。', '上传正确的证书；在此之前该应用的投递已暂停。'],
    BadCertificate: ['证书不被接受。', '为此环境上传有效的推送证书。'],
    BadCertificateEnvironment: ['证书属于另一个环境。', '上传此环境的证书。'],
    ExpiredToken: ['令牌已过期。', '应用需要重新注册。'],
    InternalServerError: ['APNs 内部错误。', 'Herald 会重试；如持续出现再处理。'],
    ServiceUnavailable: ['APNs 暂不可用。', 'Herald 会稍后重试。'],
    Expired: ['推送在发送前已过期。', '设置更长的有效期。'],
  },
};

export const languages = [{ code: 'en', name: 'English' }, { code: 'zh-Hans', name: '简体中文' }];
const dictionaries = { en, 'zh-Hans': zh };
let current = choose();

function choose() {
  let saved = null;
  try { saved = localStorage.getItem('herald.lang'); } catch { /* storage off */ }
  if (saved && dictionaries[saved]) return saved;
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const lower = l.toLowerCase();
    if (lower.startsWith('zh')) return 'zh-Hans';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

export const language = () => current;
export function setLanguage(code) {
  current = dictionaries[code] ? code : 'en';
  try { localStorage.setItem('herald.lang', current); } catch { /* storage off */ }
  applyDocumentLanguage();
}
export function applyDocumentLanguage() { document.documentElement.lang = current; }

export function t(key, params = {}) {
  const text = dictionaries[current][key] ?? en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => params[name] ?? '');
}

export function reasonHelp(reason) {
  const table = current === 'zh-Hans' ? reasons.zh : reasons.en;
  const [meaning, todo] = table[reason] || reasons.en[reason] || [t('push.reason') + ': ' + reason, '—'];
  return { meaning, todo };
}

export const formatTime = (iso) => new Date(iso).toLocaleString(current);
export const formatNumber = (n) => new Intl.NumberFormat(current).format(n);
export const keys = { en: Object.keys(en), 'zh-Hans': Object.keys(zh) };
