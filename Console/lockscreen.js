import { t } from './i18n.js';
import { h } from './ui.js';

// The notification as an iPhone lock screen shows it: app icon and name, "now", bold title, subtitle,
// body cut after four lines, a badge on the icon; a critical alert gets the red critical mark.
export function lockScreen(payload, { appName, critical = false, when } = {}) {
  const aps = (payload && payload.aps) || {};
  const now = when ? new Date(when) : new Date();
  const locale = document.documentElement.lang || undefined;
  return h('figure', { class: 'phone', 'aria-label': t('compose.lockScreen') },
    h('div', { class: 'screen' },
      h('p', { class: 'clock' }, now.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' })),
      h('p', { class: 'date' }, now.toLocaleDateString(locale, { weekday: 'long', month: 'long', day: 'numeric' })),
      card(payload, { appName, critical }),
      aps.badge !== undefined ? h('p', { class: 'badge-line' }, t('phone.badge', { n: aps.badge })) : null,
      aps.sound ? h('p', { class: 'sound-line' }, '🔔 ' + (typeof aps.sound === 'string' ? aps.sound : aps.sound.name)) : null));
}

// One notification banner, as in the lock screen's list.
export function card(payload, { appName, critical = false, time } = {}) {
  const aps = (payload && payload.aps) || {};
  let alert = aps.alert;
  if (typeof alert === 'string') alert = { body: alert };
  alert = alert || {};
  return alert.title || alert.body || alert.subtitle
    ? h('div', { class: 'notification' + (critical || aps['interruption-level'] === 'critical' ? ' critical' : '') },
        h('div', { class: 'n-head' }, h('span', { class: 'n-icon', 'aria-hidden': 'true' }, (appName || 'A').slice(0, 1).toUpperCase()),
          h('span', { class: 'n-app' }, appName), h('span', { class: 'n-time' }, time || t('phone.now'))),
        alert.title ? h('p', { class: 'n-title' }, alert.title) : null,
        alert.subtitle ? h('p', { class: 'n-subtitle' }, alert.subtitle) : null,
        alert.body ? h('p', { class: 'n-body' }, alert.body) : null,
        aps['mutable-content'] && payload['attachment-url'] ? h('span', { class: 'n-attachment', title: payload['attachment-url'] }, '🖼') : null)
    : h('p', { class: 'silent' }, aps['content-available'] ? t('phone.background') : t('phone.nothing'));
}
