import { t } from './i18n.js';
import { api } from './api.js';
import { h, field, showError, clearErrors, debounce, select, toast, num, nextId } from './ui.js';
import { currentApp, go } from './app.js';
import { lockScreen } from './lockscreen.js';

const pushTypes = ['alert', 'background', 'voip', 'liveactivity', 'location', 'complication', 'fileprovider', 'mdm', 'pushtotalk', 'widgets'];
const list = (s) => s.split(/[\s,]+/).map(x => x.trim()).filter(Boolean);
const uuid = () => (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2));

// Compose: the form on the left, and on the right what the server says about it (a dry run on every
// change): audience, exact payload per locale with its size against Apple's limit, headers, lock screen.
export async function render(main) {
  const c = controls();
  const variants = h('div', { class: 'variants' });
  const addVariant = (locale = '', title = '', body = '') => {
    const row = h('fieldset', { class: 'variant' }, h('legend', {}, t('compose.variant')),
      field(t('compose.locale'), h('input', { name: 'vlocale', value: locale, placeholder: 'zh-Hans', autocomplete: 'off' })),
      field(t('compose.title'), h('input', { name: 'vtitle', value: title })),
      field(t('compose.subtitle'), h('input', { name: 'vsubtitle' })),
      field(t('compose.body'), h('textarea', { name: 'vbody', rows: 2 }, body)),
      h('button', { type: 'button', class: 'secondary', onclick: () => { row.remove(); changed(); } }, t('compose.removeVariant')));
    variants.append(row);
    row.querySelector('input').focus();
  };

  const form = h('form', { class: 'compose-form', 'aria-label': t('compose.title.form'), novalidate: true, onsubmit: (e) => { e.preventDefault(); send(); } },
    h('fieldset', {}, h('legend', {}, t('compose.target')),
      field(t('compose.audience'), c.mode, { field: 'target' }),
      field(t('compose.values'), c.values, { field: 'target.values', hint: t('compose.values.hint') }),
      h('div', { class: 'row' },
        field(t('compose.tagsAny'), c.tagsAny, { field: 'target.tags.any' }),
        field(t('compose.tagsAll'), c.tagsAll, { field: 'target.tags.all' }),
        field(t('compose.tagsNone'), c.tagsNone, { field: 'target.tags.none' })),
      h('details', {}, h('summary', {}, t('compose.filters')),
        h('div', { class: 'row' },
          field(t('compose.environment'), c.environment, { field: 'target.environment' }),
          field(t('compose.filterLocale'), c.fLocale, { field: 'target.filter.locale' }),
          field(t('compose.filterVersion'), c.fVersion, { field: 'target.filter.appVersion' }),
          field(t('compose.filterZone'), c.fZone, { field: 'target.filter.timeZone' })),
        field(t('compose.filterProps'), c.fProps, { field: 'target.filter.properties', hint: '{"plan": "pro"}' }))),
    h('fieldset', {}, h('legend', {}, t('compose.content')),
      field(t('compose.title'), c.title, { field: 'content.alert.title' }),
      field(t('compose.subtitle'), c.subtitle, { field: 'content.alert.subtitle' }),
      field(t('compose.body'), c.body, { field: 'content.alert.body' }),
      h('div', { 'data-field': 'content.localized' }, variants, h('p', { class: 'field-error', id: nextId('e'), role: 'alert', hidden: true }),
        h('button', { type: 'button', class: 'secondary', onclick: () => addVariant() }, t('compose.addVariant'))),
      h('div', { class: 'row' },
        field(t('compose.badge'), c.badgeMode, { field: 'content.badge' }),
        field(t('compose.badgeValue'), c.badgeValue),
        field(t('compose.sound'), c.sound, { field: 'content.sound' }),
        h('div', { class: 'check' }, c.critical, h('label', { for: c.critical.id }, t('compose.critical'))),
        field(t('compose.volume'), c.volume, { field: 'content.sound.volume' })),
      h('details', {}, h('summary', {}, t('compose.more')),
        h('div', { class: 'row' },
          field(t('compose.category'), c.category, { field: 'content.category' }),
          field(t('compose.threadId'), c.threadId, { field: 'content.threadId' }),
          field(t('compose.interruption'), c.interruption, { field: 'content.interruptionLevel' }),
          field(t('compose.relevance'), c.relevance, { field: 'content.relevanceScore', hint: '0 – 1' })),
        h('div', { class: 'row' },
          h('div', { class: 'check' }, c.contentAvailable, h('label', { for: c.contentAvailable.id }, 'content-available')),
          h('div', { class: 'check' }, c.mutable, h('label', { for: c.mutable.id }, 'mutable-content')),
          field(t('compose.attachment'), c.attachment, { field: 'content.data.attachment-url' })),
        field(t('compose.data'), c.data, { field: 'content.data', hint: t('compose.data.hint') }))),
    h('fieldset', {}, h('legend', {}, t('compose.options')),
      h('div', { class: 'row' },
        field(t('compose.pushType'), c.pushType, { field: 'options.pushType' }),
        field(t('compose.priority'), c.priority, { field: 'options.priority' }),
        field(t('compose.ttl'), c.ttl, { field: 'options.ttl', hint: t('compose.ttl.hint') }),
        field(t('compose.expiration'), c.expiration, { field: 'options.expiration' }),
        field(t('compose.collapseId'), c.collapseId, { field: 'options.collapseId' })),
      h('div', { class: 'row' },
        field(t('compose.when'), c.when, { field: 'options' }),
        field(t('compose.sendAt'), c.sendAt, { field: 'options.sendAt' }),
        field(t('compose.localTime'), c.localTime, { field: 'options.localTime', hint: t('compose.localTime.hint') })),
      field(t('compose.idempotency'), c.idempotency, { field: 'idempotencyKey', hint: t('compose.idempotency.hint') })),
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('div', { class: 'actions' },
      h('button', { type: 'submit', id: 'send' }, t('compose.send')),
      h('span', { class: 'test-device' },
        field(t('compose.testToken'), c.testToken, { field: 'test.token' }),
        h('button', { type: 'button', class: 'secondary', id: 'send-test', onclick: () => send(true) }, t('compose.sendTest')))));

  const audience = h('p', { class: 'audience', 'aria-live': 'polite' }, '…');
  const variantPicker = select([['', t('compose.default')]], '', { 'aria-label': t('compose.previewLocale'), onchange: () => showVariant() });
  const size = h('p', { class: 'size', 'aria-live': 'polite' });
  const meter = h('meter', { min: 0, max: 4096, value: 0, 'aria-label': t('compose.size') });
  const payload = h('pre', { class: 'payload', tabindex: 0, 'aria-label': t('compose.payload') });
  const headers = h('dl', { class: 'headers' });
  const phone = h('div', { class: 'phone-slot' });
  const preview = h('aside', { class: 'preview', 'aria-label': t('compose.preview') },
    h('h2', {}, t('compose.audienceCount')), audience,
    h('h2', {}, t('compose.payload')), field(t('compose.previewLocale'), variantPicker), meter, size, payload,
    h('h2', {}, t('compose.headers')), headers,
    h('h2', {}, t('compose.lockScreen')), phone);
  main.append(h('h1', {}, t('nav.compose')), h('div', { class: 'compose' }, form, preview));

  let last = null, sequence = 0;
  function showVariant() {
    if (!last) return;
    const v = last.variants.find(x => x.locale === variantPicker.value) || last.variants[0];
    if (!v) return;
    meter.max = last.payloadLimit; meter.value = v.bytes; meter.high = last.payloadLimit * 0.9; meter.optimum = 0;
    size.textContent = t('compose.bytes', { bytes: num(v.bytes), limit: num(last.payloadLimit) });
    size.className = 'size' + (v.bytes > last.payloadLimit ? ' over' : '');
    payload.textContent = JSON.stringify(v.payload, null, 2);
    headers.replaceChildren(...Object.entries(last.headers).sort().flatMap(([k, val]) => [h('dt', {}, k), h('dd', {}, val)]));
    phone.replaceChildren(lockScreen(v.payload, { appName: currentApp()?.name || 'App', critical: c.critical.checked }));
  }

  const dryRun = debounce(async () => {
    const mine = ++sequence;
    let body;
    try { body = build(); } catch (err) { showError(form, err); return; }
    const c0 = body.content;
    if (!c0.alert && !c0.localized && !c0.badge && !c0.sound && !c0.data && !c0.contentAvailable) {
      // Nothing to deliver yet: say what to do rather than show the API's "empty content" error.
      clearErrors(form); last = null; preview.classList.add('stale');
      audience.textContent = t('compose.start');
      return;
    }
    body.dryRun = true; delete body.idempotencyKey;
    try {
      const r = await api('POST', '/v1/pushes', body);
      if (mine !== sequence) return;
      clearErrors(form); preview.classList.remove('stale');
      last = r;
      if (!performance.getEntriesByName('herald:audience').length) performance.mark('herald:audience');
      audience.textContent = t(r.audience === 1 ? 'compose.devices.one' : 'compose.devices', { n: num(r.audience) }) +
        (Object.keys(r.environments).length ? ' · ' + Object.entries(r.environments).map(([e, n]) => `${e} ${num(n)}`).join(', ') : '') +
        (r.unresolved.length ? ' · ' + t('compose.unresolved', { list: r.unresolved.join(', ') }) : '');
      const chosen = variantPicker.value;
      variantPicker.replaceChildren(...r.variants.map(v => h('option', { value: v.locale, selected: v.locale === chosen }, v.locale || t('compose.default'))));
      showVariant();
    } catch (err) {
      if (mine !== sequence) return;
      preview.classList.add('stale');
      audience.textContent = t('compose.invalid');
      showError(form, err);
    }
  }, 300);
  const changed = () => dryRun();
  form.addEventListener('input', changed);
  form.addEventListener('change', changed);
  c.mode.addEventListener('change', () => syncMode(c));
  c.when.addEventListener('change', () => syncMode(c));
  syncMode(c);
  dryRun();

  function build(testToken) {
    const target = {};
    const mode = c.mode.value;
    const values = list(c.values.value);
    if (testToken) target.tokens = [testToken];
    else if (mode === 'all') target.all = true;
    else if (mode !== 'tags') target[mode] = values;
    if (!testToken) {
      const tags = {};
      if (c.tagsAny.value.trim()) tags.any = list(c.tagsAny.value);
      if (c.tagsAll.value.trim()) tags.all = list(c.tagsAll.value);
      if (c.tagsNone.value.trim()) tags.none = list(c.tagsNone.value);
      if (Object.keys(tags).length) target.tags = tags;
      if (c.environment.value) target.environment = c.environment.value;
      const filter = {};
      const multi = (s) => { const l = list(s); return l.length === 1 ? l[0] : { in: l }; };
      if (c.fLocale.value.trim()) filter.locale = multi(c.fLocale.value);
      if (c.fVersion.value.trim()) filter.appVersion = multi(c.fVersion.value);
      if (c.fZone.value.trim()) filter.timeZone = multi(c.fZone.value);
      if (c.fProps.value.trim()) filter.properties = parseJSON(c.fProps.value, 'target.filter.properties');
      if (Object.keys(filter).length) target.filter = filter;
    }
    const content = {};
    const alert = {};
    if (c.title.value) alert.title = c.title.value;
    if (c.subtitle.value) alert.subtitle = c.subtitle.value;
    if (c.body.value) alert.body = c.body.value;
    if (Object.keys(alert).length) content.alert = alert;
    const localized = {};
    for (const row of variants.querySelectorAll('.variant')) {
      const locale = row.querySelector('[name=vlocale]').value.trim();
      const v = {};
      const vt = row.querySelector('[name=vtitle]').value, vb = row.querySelector('[name=vbody]').value;
      const vs = row.querySelector('[name=vsubtitle]').value;
      if (vt) v.title = vt;
      if (vs) v.subtitle = vs;
      if (vb) v.body = vb;
      if (locale) localized[locale] = v;
    }
    if (Object.keys(localized).length) content.localized = localized;
    if (c.badgeMode.value) content.badge = { [c.badgeMode.value]: Number(c.badgeValue.value || 0) };
    if (c.sound.value || c.critical.checked) {
      content.sound = c.critical.checked || c.volume.value
        ? { name: c.sound.value || 'default', critical: c.critical.checked, ...(c.volume.value ? { volume: Number(c.volume.value) } : {}) }
        : c.sound.value;
    }
    if (c.category.value) content.category = c.category.value;
    if (c.threadId.value) content.threadId = c.threadId.value;
    if (c.interruption.value) content.interruptionLevel = c.interruption.value;
    if (c.relevance.value !== '') content.relevanceScore = Number(c.relevance.value);
    if (c.contentAvailable.checked) content.contentAvailable = true;
    if (c.mutable.checked) content.mutableContent = true;
    let data = c.data.value.trim() ? parseJSON(c.data.value, 'content.data') : null;
    if (data !== null && (typeof data !== 'object' || Array.isArray(data))) throw { field: 'content.data', message: t('compose.data.object') };
    if (c.mutable.checked && c.attachment.value.trim()) data = { ...(data || {}), 'attachment-url': c.attachment.value.trim() };
    if (data) content.data = data;
    const options = {};
    if (c.pushType.value !== 'alert') options.pushType = c.pushType.value;
    if (c.priority.value) options.priority = Number(c.priority.value);
    if (c.ttl.value !== '') options.ttl = Number(c.ttl.value);
    if (c.expiration.value) options.expiration = new Date(c.expiration.value).toISOString();
    if (c.collapseId.value) options.collapseId = c.collapseId.value;
    if (c.when.value === 'at' && c.sendAt.value) options.sendAt = new Date(c.sendAt.value).toISOString();
    if (c.when.value === 'local' && c.localTime.value) options.localTime = c.localTime.value;
    const body = { target, content };
    if (Object.keys(options).length) body.options = options;
    if (c.idempotency.value.trim()) body.idempotencyKey = c.idempotency.value.trim();
    return body;
  }

  async function send(test = false) {
    clearErrors(form);
    const token = c.testToken.value.trim();
    if (test && !token) { showError(form, { field: 'test.token', message: t('compose.testToken.missing') }); c.testToken.focus(); return; }
    let body;
    try { body = build(test ? token : null); } catch (err) { showError(form, err); return; }
    if (test) body.idempotencyKey = uuid();
    const buttons = form.querySelectorAll('.actions button');
    buttons.forEach(b => { b.disabled = true; });
    try {
      const r = await api('POST', '/v1/pushes', body);
      c.idempotency.value = uuid();
      toast(t('compose.sent', { id: r.id }));
      go(`#/pushes/${encodeURIComponent(r.id)}`);
    } catch (err) {
      if (test && err.field && err.field.startsWith('target')) err.field = 'test.token';
      const shown = showError(form, err);
      (shown?.querySelector?.('input, select, textarea') || shown)?.focus?.();
    } finally { buttons.forEach(b => { b.disabled = false; }); }
  }
}

function parseJSON(text, fieldName) {
  try { return JSON.parse(text); } catch (e) { throw { field: fieldName, message: t('compose.json.invalid', { error: e.message }) }; }
}

function controls() {
  const input = (attrs = {}) => h('input', { autocomplete: 'off', ...attrs });
  const check = () => h('input', { type: 'checkbox', id: nextId('c') });
  return {
    mode: select([['all', t('compose.mode.all')], ['tags', t('compose.mode.tags')], ['aliases', t('compose.mode.aliases')],
      ['userIds', t('compose.mode.userIds')], ['tokens', t('compose.mode.tokens')], ['installationIds', t('compose.mode.installationIds')]], 'all', { name: 'mode' }),
    values: h('textarea', { name: 'values', rows: 2 }),
    tagsAny: input({ name: 'tagsAny' }), tagsAll: input({ name: 'tagsAll' }), tagsNone: input({ name: 'tagsNone' }),
    environment: select([['', t('compose.both')], ['production', 'production'], ['sandbox', 'sandbox']], '', { name: 'environment' }),
    fLocale: input({ name: 'filterLocale', placeholder: 'fr, zh-Hans' }), fVersion: input({ name: 'filterVersion', placeholder: '2.1.0' }),
    fZone: input({ name: 'filterZone', placeholder: 'Asia/Shanghai' }), fProps: h('textarea', { name: 'filterProps', rows: 2 }),
    title: input({ name: 'title' }), subtitle: input({ name: 'subtitle' }), body: h('textarea', { name: 'body', rows: 3 }),
    badgeMode: select([['', t('compose.badge.none')], ['set', t('compose.badge.set')], ['increment', t('compose.badge.increment')],
      ['decrement', t('compose.badge.decrement')]], '', { name: 'badgeMode' }),
    badgeValue: input({ name: 'badgeValue', type: 'number', min: 0, max: 99999, value: '1', inputmode: 'numeric' }),
    sound: input({ name: 'sound', placeholder: 'default' }), critical: check(),
    volume: input({ name: 'volume', type: 'number', min: 0, max: 1, step: 0.1 }),
    category: input({ name: 'category' }), threadId: input({ name: 'threadId' }),
    interruption: select([['', '—'], ['passive', 'passive'], ['active', 'active'], ['time-sensitive', 'time-sensitive'], ['critical', 'critical']], '', { name: 'interruptionLevel' }),
    relevance: input({ name: 'relevanceScore', type: 'text', inputmode: 'decimal' }),
    contentAvailable: check(), mutable: check(), attachment: input({ name: 'attachment', type: 'url', placeholder: 'https://' }),
    data: h('textarea', { name: 'data', rows: 3, spellcheck: 'false' }),
    pushType: select(pushTypes.map(p => [p, p]), 'alert', { name: 'pushType' }),
    priority: select([['', t('compose.priority.auto')], ['10', '10'], ['5', '5'], ['1', '1']], '', { name: 'priority' }),
    ttl: input({ name: 'ttl', type: 'number', min: 0 }), expiration: input({ name: 'expiration', type: 'datetime-local' }),
    collapseId: input({ name: 'collapseId', maxlength: 64 }),
    when: select([['now', t('compose.when.now')], ['at', t('compose.when.at')], ['local', t('compose.when.local')]], 'now', { name: 'when' }),
    sendAt: input({ name: 'sendAt', type: 'datetime-local' }), localTime: input({ name: 'localTime', type: 'time' }),
    idempotency: input({ name: 'idempotencyKey', value: uuid() }),
    testToken: input({ name: 'testToken', placeholder: t('compose.testToken.placeholder'), spellcheck: 'false' }),
  };
}

function syncMode(c) {
  c.values.closest('.field').dataset.field = 'target.' + c.mode.value;
  c.values.closest('.field').hidden = c.mode.value === 'all' || c.mode.value === 'tags';
  c.sendAt.closest('.field').hidden = c.when.value !== 'at';
  c.localTime.closest('.field').hidden = c.when.value !== 'local';
}
