import { t, reasonHelp } from './i18n.js';
import { api, qs } from './api.js';
import { h, field, select, table, statusBadge, time, num, moreButton, poll, toast, showError } from './ui.js';

const statuses = ['', 'scheduled', 'queued', 'sending', 'done', 'cancelled', 'failed'];
const final = new Set(['done', 'cancelled', 'failed']);

export async function render(main, [id]) {
  if (id) return pushPage(main, id);
  const status = select(statuses.map(s => [s, s ? t('status.' + s) : t('pushes.any')]), '', { name: 'status' });
  const body = h('tbody');
  const footer = h('div', { class: 'pager' });
  const filters = h('form', { class: 'filters', onsubmit: (e) => { e.preventDefault(); load(true); } },
    field(t('pushes.status'), status, { field: 'status' }), h('button', { type: 'submit' }, t('pushes.filter')));
  main.append(h('h1', {}, t('nav.pushes')), filters,
    h('table', { class: 'pushes' }, h('caption', { class: 'sr-only' }, t('nav.pushes')),
      h('thead', {}, h('tr', {}, [t('pushes.id'), t('pushes.created'), t('pushes.statusCol'), t('counts.targeted'), t('counts.sent'),
        t('counts.failed'), t('counts.opened')].map(c => h('th', { scope: 'col' }, c)))), body), footer);
  let before = null;
  async function load(reset) {
    if (reset) { body.replaceChildren(); before = null; }
    try {
      const r = await api('GET', '/v1/pushes' + qs({ status: status.value, before, limit: 25 }));
      for (const p of r.pushes) {
        body.append(h('tr', {},
          h('td', {}, h('a', { href: `#/pushes/${encodeURIComponent(p.id)}` }, p.id)), h('td', {}, time(p.createdAt)),
          h('td', {}, statusBadge(p.status)), h('td', { class: 'n' }, num(p.counts.targeted)), h('td', { class: 'n' }, num(p.counts.sent)),
          h('td', { class: 'n' }, num(p.counts.failed)), h('td', { class: 'n' }, num(p.counts.opened))));
      }
      before = r.pushes.length === 25 ? r.pushes[r.pushes.length - 1].createdAt : null;
      footer.replaceChildren(before ? moreButton(t('list.more'), () => load(false)) : h('p', { class: 'hint' }, body.children.length ? t('list.end') : t('pushes.none')));
    } catch (err) { showError(filters, err); }
  }
  await load(true);
}

async function pushPage(main, id) {
  const head = h('div', { class: 'push-head' });
  const counts = h('dl', { class: 'counts', 'aria-live': 'polite' });
  const progress = h('progress', { max: 1, value: 0, 'aria-label': t('push.progress') });
  const failures = h('div', { class: 'failures' });
  const deliveries = h('tbody');
  const pager = h('div', { class: 'pager' });
  const stateFilter = select([['', t('pushes.any')], ['sent', 'sent'], ['failed', 'failed'], ['pending', 'pending'], ['inFlight', 'inFlight'], ['cancelled', 'cancelled']], '',
    { name: 'state', onchange: () => loadDeliveries(true) });
  const cancel = h('button', { type: 'button', class: 'danger', onclick: async () => {
    if (!confirm(t('push.cancel.confirm'))) return;
    try { show(await api('POST', `/v1/pushes/${encodeURIComponent(id)}/cancel`)); toast(t('push.cancelled')); } catch (err) { toast(err.message, true); }
  } }, t('push.cancel'));
  main.append(h('p', {}, h('a', { href: '#/pushes' }, '← ' + t('nav.pushes'))), h('h1', {}, t('push.title'), ' ', h('code', {}, id)),
    head, progress, counts, h('h2', {}, t('push.failures')), failures,
    h('h2', {}, t('push.deliveries')), field(t('push.state'), stateFilter),
    h('table', { class: 'deliveries' }, h('caption', { class: 'sr-only' }, t('push.deliveries')),
      h('thead', {}, h('tr', {}, [t('push.installation'), t('push.state'), t('push.attempts'), 'apns-id', t('push.outcome'), t('push.updated')]
        .map(c => h('th', { scope: 'col' }, c)))), deliveries), pager);

  function show(p) {
    head.replaceChildren(...[h('p', { class: 'status-line' }, statusBadge(p.status), ' ', t('push.created'), ' ', time(p.createdAt),
      p.sendAt ? [' · ', t('push.sendAt'), ' ', time(p.sendAt)] : null, p.finishedAt ? [' · ', t('push.finished'), ' ', time(p.finishedAt)] : null),
      p.paused ? h('p', { class: 'notice' }, t('push.paused', { reason: p.paused.reason }), ' ', p.paused.message) : null,
      p.error ? h('p', { class: 'form-error' }, p.error.code, ': ', p.error.message || '') : null,
      final.has(p.status) ? null : cancel].filter(Boolean));
    const k = p.counts;
    counts.replaceChildren(...['targeted', 'sent', 'failed', 'retired', 'opened', 'cancelled', 'pending'].map(name =>
      h('div', {}, h('dt', {}, t('counts.' + name)), h('dd', { id: 'count-' + name }, num(k[name])))));
    counts.dataset.status = p.status;
    const doneCount = k.sent + k.failed + k.cancelled;
    progress.max = Math.max(k.targeted, 1); progress.value = Math.min(doneCount, progress.max);
    const reasons = Object.entries(p.failures).sort((a, b) => b[1] - a[1]);
    failures.replaceChildren(reasons.length ? table([t('push.reason'), t('push.count'), t('push.meaning'), t('push.todo')],
      reasons.map(([reason, n]) => { const help = reasonHelp(reason); return h('tr', {}, h('td', {}, h('code', {}, reason)), h('td', { class: 'n' }, num(n)), h('td', {}, help.meaning), h('td', {}, help.todo)); }))
      : h('p', { class: 'hint' }, t('push.noFailures')));
    return p;
  }

  let cursor = null;
  async function loadDeliveries(reset) {
    if (reset) { deliveries.replaceChildren(); cursor = null; }
    const r = await api('GET', `/v1/pushes/${encodeURIComponent(id)}` + qs({ include: 'deliveries', state: stateFilter.value, cursor, limit: 50 }));
    for (const d of r.deliveries) {
      deliveries.append(h('tr', {}, h('td', {}, h('a', { href: `#/devices/${encodeURIComponent(d.installationId)}` }, d.installationId)),
        h('td', {}, d.state), h('td', { class: 'n' }, d.attempts), h('td', {}, h('code', {}, d.apnsId || '—')),
        h('td', {}, d.reason || (d.status ? String(d.status) : '—')), h('td', {}, time(d.updatedAt))));
    }
    cursor = r.nextCursor;
    pager.replaceChildren(cursor ? moreButton(t('list.more'), () => loadDeliveries(false)) : h('p', { class: 'hint' }, deliveries.children.length ? t('list.end') : t('push.noDeliveries')));
    return r;
  }

  const first = show(await loadDeliveries(true));
  if (!final.has(first.status)) {
    // Live progress: counts refresh every second while the push is not finished, then the outcomes once more.
    poll(main, 1000, async () => {
      const p = show(await api('GET', `/v1/pushes/${encodeURIComponent(id)}`));
      if (final.has(p.status)) { await loadDeliveries(true); return false; }
    });
  }
}
