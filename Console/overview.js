import { t } from './i18n.js';
import { api, qs } from './api.js';
import { h, table, num, statusBadge, time, select } from './ui.js';
import { currentApp, allApps } from './app.js';
import { session } from './api.js';

const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs, ...children) => {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
};

// Overview of the selected app: pushes and deliveries over time (sent, failed by reason, opened), the
// installations, the queue, and whether the app is paused (with what to do).
export async function render(main, [interval = 'day']) {
  const app = currentApp();
  main.append(h('h1', {}, t('nav.overview'), ' · ', app?.name || ''));
  if (app?.paused) main.append(h('p', { class: 'notice' }, t('overview.paused', { reason: app.paused.reason }), ' ', t('overview.paused.todo')));
  const paused = session.role === 'admin' ? allApps().filter(a => a.paused && a.id !== app?.id) : [];
  if (paused.length) main.append(h('h2', {}, t('overview.pausedApps')), table([t('nav.app'), t('push.reason'), t('overview.since')],
    paused.map(a => h('tr', {}, h('td', {}, a.name), h('td', {}, h('code', {}, a.paused.reason)), h('td', {}, time(a.paused.since))))),
    h('p', { class: 'hint' }, t('overview.paused.todo')));
  const stats = await api('GET', '/v1/stats' + qs({ interval, limit: interval === 'hour' ? 24 : 14 })).catch(() => null);
  if (stats) {
    main.append(h('dl', { class: 'counts' },
      h('div', {}, h('dt', {}, t('overview.active')), h('dd', { id: 'installations-active' }, num(stats.installations.active))),
      h('div', {}, h('dt', {}, t('overview.retired')), h('dd', {}, num(stats.installations.retired))),
      h('div', {}, h('dt', {}, t('overview.queue')), h('dd', {}, num(stats.queue.pending)))));
    const picker = select([['day', t('overview.byDay')], ['hour', t('overview.byHour')]], interval,
      { 'aria-label': t('overview.interval'), onchange: () => { location.hash = '#/overview/' + picker.value; } });
    main.append(h('h2', {}, t(interval === 'hour' ? 'overview.chart.hour' : 'overview.chart')), picker, chart(stats.buckets, interval), legend());
    const reasons = {};
    for (const b of stats.buckets) for (const [r, n] of Object.entries(b.failedByReason || {})) reasons[r] = (reasons[r] || 0) + n;
    if (Object.keys(reasons).length) main.append(h('h2', {}, t('overview.reasons')),
      table([t('push.reason'), t('push.count')], Object.entries(reasons).sort((a, b) => b[1] - a[1]).map(([r, n]) => h('tr', {}, h('td', {}, h('code', {}, r)), h('td', { class: 'n' }, num(n))))));
  }
  const recent = await api('GET', '/v1/pushes' + qs({ limit: 10 }));
  main.append(h('h2', {}, t('overview.recent')), table([t('pushes.id'), t('pushes.created'), t('pushes.statusCol'), t('counts.sent'), t('counts.failed'), t('counts.opened')],
    recent.pushes.map(p => h('tr', {}, h('td', {}, h('a', { href: `#/pushes/${encodeURIComponent(p.id)}` }, p.id)), h('td', {}, time(p.createdAt)),
      h('td', {}, statusBadge(p.status)), h('td', { class: 'n' }, num(p.counts.sent)), h('td', { class: 'n' }, num(p.counts.failed)), h('td', { class: 'n' }, num(p.counts.opened))))));
}

// Grouped bars per interval: sent, failed, opened. Drawn with DOM calls (no inline script or style).
function chart(buckets, interval) {
  const w = 720, hgt = 200, pad = 28;
  const max = Math.max(1, ...buckets.flatMap(b => [b.sent, b.failed, b.opened]));
  const slot = (w - pad) / Math.max(buckets.length, 1);
  const bar = Math.max(2, slot / 4);
  const g = svg('g', {});
  buckets.forEach((b, i) => {
    ['sent', 'failed', 'opened'].forEach((k, j) => {
      const v = b[k]; const bh = (hgt - 30) * v / max;
      const r = svg('rect', { x: pad + i * slot + j * bar + 2, y: hgt - 20 - bh, width: bar - 1, height: bh, class: 'bar-' + k });
      r.append(svg('title', {}, `${new Date(b.start).toLocaleString()} ${t('counts.' + k)}: ${v}`));
      g.append(r);
    });
    const label = interval === 'hour' ? new Date(b.start).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
      : new Date(b.start).toLocaleDateString(undefined, { month: 'numeric', day: 'numeric' });
    if (i % Math.ceil(buckets.length / 7) === 0) g.append(svg('text', { x: pad + i * slot + 2, y: hgt - 5, class: 'axis' }, label));
  });
  g.append(svg('text', { x: 0, y: 12, class: 'axis' }, String(max)));
  return h('figure', { class: 'chart' }, svg('svg', { viewBox: `0 0 ${w} ${hgt}`, role: 'img', 'aria-label': t('overview.chart') }, g));
}

const legend = () => h('p', { class: 'legend' }, ['sent', 'failed', 'opened'].map(k => h('span', { class: 'key-' + k }, t('counts.' + k))));
