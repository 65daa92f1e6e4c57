import { t } from './i18n.js';
import { api, qs, session } from './api.js';
import { h, field, table, time, moreButton, toast, showError, clearErrors, poll } from './ui.js';
import { go } from './app.js';

// The event types a webhook can subscribe to (docs/webhooks.md); delivery.failed is opt-in (one event per
// failed device), so it starts unchecked.
const eventTypes = ['push.done', 'push.failed', 'push.cancelled', 'installation.retired', 'notification.opened',
  'app.paused', 'app.resumed', 'credential.rejected', 'delivery.failed'];
const optIn = new Set(['delivery.failed']);

const base = () => `/v1/apps/${encodeURIComponent(session.app)}/webhooks`;
// The app is in the path, as on the Apps screen: no X-Herald-App header.
const call = (method, path, body) => api(method, path, body, { app: false });

// Webhooks: the app's webhooks and a form to add one (its signing secret is shown once); a webhook's page
// enables, disables, rotates the secret, pings, deletes, and lists its deliveries with each attempt.
export async function render(main, [id]) {
  if (id) return webhookPage(main, id);
  const secrets = h('div', { class: 'secrets', 'aria-live': 'polite' });
  const rows = h('tbody');
  main.append(h('h1', {}, t('nav.webhooks')), secrets, h('h2', {}, t('webhooks.list')),
    table([t('webhooks.url'), t('webhooks.events'), t('webhooks.state'), t('webhooks.description')], rows), createForm(secrets, load));
  async function load() {
    const r = await call('GET', base());
    rows.replaceChildren(...(r.webhooks.length ? r.webhooks.map(w => h('tr', { dataset: { webhook: w.id } },
      h('td', {}, h('a', { href: `#/webhooks/${encodeURIComponent(w.id)}` }, w.url)), h('td', {}, w.events.join(', ')),
      h('td', { class: 'webhook-state' }, stateText(w)), h('td', {}, w.description || '—')))
      : [h('tr', {}, h('td', { colspan: 4, class: 'hint' }, t('webhooks.none')))]));
  }
  await load();
}

function stateText(w) {
  if (w.enabled) return t('webhooks.enabled');
  return w.disabled ? [t('webhooks.disabledBecause', { reason: w.disabled.reason }), ' · ', time(w.disabled.since)] : t('webhooks.disabled');
}

function secretNotice(label, secret) {
  return h('div', { class: 'notice', role: 'status' }, h('p', {}, label), h('output', { class: 'secret' }, secret),
    h('p', { class: 'hint' }, t('webhooks.secret.store')),
    h('button', { type: 'button', class: 'secondary', onclick: () => navigator.clipboard?.writeText(secret).then(() => toast(t('apps.copied'))) }, t('apps.copy')));
}

function eventBoxes(selected) {
  return h('fieldset', { class: 'events' }, h('legend', {}, t('webhooks.events')),
    eventTypes.map(type => h('label', { class: 'check' },
      h('input', { type: 'checkbox', name: 'event', value: type, checked: selected.has(type) }), type,
      optIn.has(type) ? h('span', { class: 'hint' }, ' ', t('webhooks.optIn')) : null)));
}

function createForm(secrets, reload) {
  const url = h('input', { name: 'url', type: 'url', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'https://backend.example.com/herald-events' });
  const description = h('input', { name: 'description', autocomplete: 'off' });
  const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: true });
  const events = eventBoxes(new Set(eventTypes.filter(e => !optIn.has(e))));
  const form = h('form', { class: 'card', onsubmit: async (e) => {
    e.preventDefault(); clearErrors(form);
    const chosen = [...events.querySelectorAll('input[name=event]:checked')].map(b => b.value);
    if (!chosen.length) { showError(form, { field: 'events', message: t('webhooks.events.missing') }); return; }
    try {
      const r = await call('POST', base(), { url: url.value.trim(), events: chosen, enabled: enabled.checked,
        ...(description.value.trim() ? { description: description.value.trim() } : {}) });
      secrets.replaceChildren(secretNotice(t('webhooks.secret.new', { id: r.id }), r.secret));
      form.reset(); enabled.checked = true;
      toast(t('webhooks.created'));
      await reload();
    } catch (err) { showError(form, err); }
  } }, h('h2', {}, t('webhooks.create')),
    field(t('webhooks.url'), url, { field: 'url', hint: t('webhooks.url.hint') }),
    h('div', { class: 'field', dataset: { field: 'events' } }, events, h('p', { class: 'field-error', id: 'events-error', role: 'alert', hidden: true })),
    field(t('webhooks.description'), description, { field: 'description' }),
    h('div', { class: 'field', dataset: { field: 'enabled' } }, h('label', { class: 'check' }, enabled, t('webhooks.enabledBox')),
      h('p', { class: 'field-error', id: 'enabled-error', role: 'alert', hidden: true })),
    h('p', { class: 'form-error', role: 'alert', hidden: true }), h('button', { type: 'submit' }, t('webhooks.create')));
  return form;
}

async function webhookPage(main, id) {
  const path = `${base()}/${encodeURIComponent(id)}`;
  const back = h('p', {}, h('a', { href: '#/webhooks' }, '← ' + t('nav.webhooks')));
  let w;
  try { w = await call('GET', path); } catch (err) {
    main.append(back, h('p', { class: 'form-error', role: 'alert' }, err.message));
    return;
  }
  const facts = h('dl', { class: 'facts' });
  const secrets = h('div', { class: 'secrets', 'aria-live': 'polite' });
  const toggle = h('button', { type: 'button', class: 'secondary', name: 'toggle' });
  const actions = h('div', { class: 'actions' }, toggle,
    h('button', { type: 'button', class: 'secondary', name: 'ping', onclick: () => act(async () => {
      await call('POST', path + '/ping'); toast(t('webhooks.pinged')); await loadDeliveries(true);
    }) }, t('webhooks.ping')),
    h('button', { type: 'button', class: 'secondary', name: 'rotate', onclick: () => act(async () => {
      if (!confirm(t('webhooks.rotate.confirm'))) return;
      const r = await call('POST', path + '/rotate-secret');
      secrets.replaceChildren(secretNotice(t('webhooks.secret.rotated'), r.secret));
    }) }, t('webhooks.rotate')),
    h('button', { type: 'button', class: 'danger', name: 'delete', onclick: () => act(async () => {
      if (!confirm(t('webhooks.delete.confirm', { url: w.url }))) return;
      await call('DELETE', path); toast(t('webhooks.deleted')); go('#/webhooks');
    }) }, t('webhooks.delete')));
  const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
  toggle.addEventListener('click', () => act(async () => show(await call('PATCH', path, { enabled: !w.enabled }))));
  const deliveries = h('div', { class: 'results', 'aria-live': 'polite' });
  main.append(back, h('h1', {}, t('webhooks.webhook'), ' ', h('code', {}, w.id)), facts, secrets, actions, error,
    h('h2', {}, t('webhooks.deliveries')), deliveries);

  async function act(fn) {
    error.hidden = true;
    for (const b of actions.querySelectorAll('button')) b.disabled = true;
    try { await fn(); } catch (err) { error.textContent = err.message; error.hidden = false; }
    finally { for (const b of actions.querySelectorAll('button')) b.disabled = false; }
  }
  function show(rec) {
    w = rec;
    facts.replaceChildren(
      h('dt', {}, t('webhooks.url')), h('dd', {}, w.url), h('dt', {}, t('webhooks.events')), h('dd', {}, w.events.join(', ')),
      h('dt', {}, t('webhooks.state')), h('dd', { id: 'webhook-state' }, stateText(w)),
      h('dt', {}, t('webhooks.failureRun')), h('dd', {}, String(w.failureRun)),
      h('dt', {}, t('webhooks.description')), h('dd', {}, w.description || '—'),
      h('dt', {}, t('apps.created')), h('dd', {}, time(w.createdAt)), h('dt', {}, t('apps.updated')), h('dd', {}, time(w.updatedAt)));
    toggle.textContent = w.enabled ? t('webhooks.disable') : t('webhooks.enable');
  }

  let cursor = null, rows = null, pages = 0;
  async function loadDeliveries(reset) {
    if (reset) {
      cursor = null; pages = 0; rows = h('tbody');
      deliveries.replaceChildren(table([t('webhooks.delivery'), t('webhooks.kind'), t('push.state'), t('pushes.created'), t('webhooks.attempts'), ''], rows));
    }
    const r = await call('GET', path + '/deliveries' + qs({ cursor, limit: 20 }));
    if (reset) rows.replaceChildren();
    for (const d of r.deliveries) rows.append(deliveryRow(d));
    cursor = r.nextCursor; pages += 1;
    deliveries.querySelector('.pager')?.remove();
    deliveries.append(h('div', { class: 'pager' }, cursor ? moreButton(t('list.more'), () => loadDeliveries(false))
      : h('p', { class: 'hint' }, rows.children.length ? t('list.end') : t('webhooks.noDeliveries'))));
    return r.deliveries.some(d => d.state === 'pending');
  }
  function deliveryRow(d) {
    const redeliver = d.kind === 'ping' ? null : h('button', { type: 'button', class: 'secondary', 'aria-label': t('webhooks.redeliver.label', { id: d.id }),
      onclick: () => act(async () => { await call('POST', `${path}/deliveries/${encodeURIComponent(d.id)}/redeliver`); toast(t('webhooks.redelivered')); await loadDeliveries(true); }) },
      t('webhooks.redeliver'));
    return h('tr', { dataset: { delivery: d.id } }, h('td', {}, h('code', {}, d.id)), h('td', {}, t('webhooks.kind.' + d.kind), d.kind === 'ping' ? null : [' · ', t('webhooks.eventCount', { n: d.eventCount })]),
      h('td', { class: 'delivery-state' }, t('webhooks.state.' + d.state)), h('td', {}, time(d.createdAt)),
      h('td', {}, d.attempts.length ? h('ol', { class: 'attempts' }, d.attempts.map(a => h('li', { class: 'attempt' },
        h('span', { class: a.status >= 200 && a.status < 300 ? 'ok' : 'failed' }, a.status != null ? `HTTP ${a.status}` : t('webhooks.noStatus')),
        a.error ? [' · ', h('span', { class: 'attempt-error' }, a.error)] : null, ' · ', t('webhooks.latency', { ms: a.latencyMs }), ' · ', time(a.at),
        a.body ? h('pre', { class: 'answer', 'aria-label': t('webhooks.answer') }, a.body) : null)))
        : h('span', { class: 'hint' }, d.nextAttemptAt ? [t('webhooks.nextAttempt'), ' ', time(d.nextAttemptAt)] : '—')),
      h('td', {}, redeliver));
  }

  show(w);
  await loadDeliveries(true);
  // A ping or a redelivery is sent within moments: while the first page has one pending, refresh it.
  poll(deliveries, 2000, async () => {
    if (pages === 1 && rows.querySelector('[data-delivery]') && [...rows.querySelectorAll('.delivery-state')].some(s => s.textContent === t('webhooks.state.pending'))) {
      await loadDeliveries(true);
    }
  });
}
