import { t } from './i18n.js';
import { api, qs } from './api.js';
import { h, moreButton, poll, toast, time } from './ui.js';
import { card } from './lockscreen.js';

// The built-in simulator: its devices, and a phone that shows notifications as they are delivered, with
// "Open" to record an open (Herald counts it on the push).
export async function render(main, [deviceId]) {
  const list = h('ul', { class: 'sim-devices', 'aria-label': t('sim.devices') });
  const phone = h('section', { class: 'sim-phone', 'aria-live': 'polite', 'aria-label': t('sim.phone') });
  main.append(h('h1', {}, t('nav.simulator')), h('div', { class: 'simulator' }, h('nav', { 'aria-label': t('sim.devices') }, h('h2', {}, t('sim.devices')), list), phone));
  let cursor = null;
  async function loadDevices() {
    let r;
    try { r = await api('GET', '/v1/simulator/devices' + qs({ cursor, limit: 50 })); } catch (err) {
      main.append(h('p', { class: 'notice' }, err.code === 'simulator_off' ? t('sim.off') : err.message)); return;
    }
    list.querySelector('.more')?.remove();
    for (const d of r.devices) {
      list.append(h('li', {}, h('a', { href: `#/simulator/${encodeURIComponent(d.id)}`, 'aria-current': d.id === deviceId ? 'page' : false },
        h('strong', {}, d.name), ' ', h('span', { class: 'hint' }, t('sim.count', { n: d.notifications })),
        h('br'), d.apps.map(a => h('small', { class: 'token' }, `${a.bundleId} · ${a.environment} · ${a.token.slice(0, 16)}…`)))));
    }
    cursor = r.nextCursor;
    if (cursor) list.append(h('li', { class: 'more' }, moreButton(t('list.more'), loadDevices)));
    if (!r.devices.length && !list.children.length) list.append(h('li', { class: 'hint' }, t('sim.noDevices')));
    if (!deviceId && r.devices[0]) deviceId = r.devices[0].id;
  }
  await loadDevices();
  if (!deviceId) return;

  const screen = h('ol', { class: 'inbox', reversed: true });
  phone.append(h('h2', {}, t('sim.phone'), ' ', h('code', {}, deviceId)), h('div', { class: 'phone-frame' }, screen));
  const shown = new Map();
  let since = 0;
  const refresh = async () => {
    const r = await api('GET', `/v1/simulator/devices/${encodeURIComponent(deviceId)}/notifications` + qs({ sinceMs: since ? since - 1 : 0, limit: 50 }));
    for (const n of r.notifications.slice().reverse()) {
      since = Math.max(since, n.deliveredAtMs);
      const old = shown.get(n.apnsId);
      if (old && old.dataset.opened === String(!!n.opened)) continue;   // unchanged: keep the element (and the focus on it)
      const item = notification(n);
      if (old) old.replaceWith(item); else screen.prepend(item);
      shown.set(n.apnsId, item);
    }
    if (!shown.size) screen.replaceChildren(h('li', { class: 'hint' }, t('sim.empty')));
    else screen.querySelector(':scope > .hint')?.remove();
  };
  function notification(n) {
    const open = h('button', { type: 'button', class: 'open', disabled: n.opened, onclick: async () => {
      try {
        await api('POST', `/v1/simulator/devices/${encodeURIComponent(deviceId)}/opened`, { apnsId: n.apnsId });
        n.opened = true; const item = notification(n); shown.get(n.apnsId).replaceWith(item); shown.set(n.apnsId, item);
        toast(t('sim.openedToast'));
      } catch (err) { toast(err.message, true); }
    } }, n.opened ? t('sim.opened') : t('sim.open'));
    return h('li', { class: 'sim-note', dataset: { apnsId: n.apnsId, opened: String(!!n.opened) } },
      card(n.payload, { appName: n.bundleId, time: new Date(n.deliveredAt).toLocaleTimeString() }),
      h('p', { class: 'meta' }, time(n.deliveredAt), ' · ', n.pushType, n.payload?.aps?.badge !== undefined ? ` · badge ${n.payload.aps.badge}` : '', ' · ',
        h('code', {}, n.apnsId)), open);
  }
  await refresh();
  poll(main, 1000, refresh);
}
