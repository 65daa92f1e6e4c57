import { t } from './i18n.js';
import { api, qs } from './api.js';
import { h, field, select, table, time, moreButton, toast, showError, clearErrors, nextId } from './ui.js';
import { go } from './app.js';

const modes = ['deviceToken', 'installationId', 'alias', 'userId', 'tag'];

// Devices: find installations by token, installation id, alias, user id or tag (paged), then one device's
// fields, its tags and alias (editable), the pushes it was targeted by with their outcome, and a test push to it.
export async function render(main, [id]) {
  if (id) return devicePage(main, id);
  const by = select(modes.map(m => [m, t('devices.by.' + m)]), 'deviceToken', { name: 'by' });
  const value = h('input', { name: 'value', autocomplete: 'off', spellcheck: 'false', required: true });
  const results = h('div', { class: 'results', 'aria-live': 'polite' });
  let cursor = null, rows = null;
  const form = h('form', { class: 'filters', role: 'search', onsubmit: async (e) => { e.preventDefault(); await search(true); } },
    field(t('devices.by'), by), field(t('devices.value'), value, { field: 'query' }), h('button', { type: 'submit' }, t('devices.find')),
    h('p', { class: 'form-error', role: 'alert', hidden: true }));
  main.append(h('h1', {}, t('nav.devices')), form, results);
  value.focus();

  async function search(reset) {
    clearErrors(form);
    const v = value.value.trim();
    if (!v) { showError(form, { field: 'query', message: t('devices.value.missing') }); return; }
    if (by.value === 'installationId') return go(`#/devices/${encodeURIComponent(v)}`);
    if (reset) { cursor = null; rows = h('tbody'); results.replaceChildren(table([t('devices.id'), t('devices.token'), 'alias', 'userId', t('devices.tags'), t('devices.active')], rows)); }
    try {
      const r = await api('GET', '/v1/installations' + qs({ [by.value]: v, cursor, limit: 50 }));
      for (const d of r.installations) rows.append(h('tr', {},
        h('td', {}, h('a', { href: `#/devices/${encodeURIComponent(d.id)}` }, d.installationId)), h('td', {}, h('code', { class: 'token' }, d.deviceToken || '—')),
        h('td', {}, d.alias || '—'), h('td', {}, d.userId || '—'), h('td', {}, d.tags.join(', ')), h('td', {}, d.active ? t('yes') : t('devices.retired', { reason: d.inactiveReason || '' }))));
      cursor = r.nextCursor;
      results.querySelector('.pager')?.remove();
      results.append(h('div', { class: 'pager' }, cursor ? moreButton(t('list.more'), () => search(false)) : h('p', { class: 'hint' }, rows.children.length ? t('list.end') : t('devices.none'))));
      if (reset && r.installations.length === 1 && !cursor) go(`#/devices/${encodeURIComponent(r.installations[0].id)}`);
    } catch (err) { showError(form, err); }
  }
}

async function devicePage(main, id) {
  let d;
  try { d = await api('GET', `/v1/installations/${encodeURIComponent(id)}`); } catch (err) {
    main.append(h('p', {}, h('a', { href: '#/devices' }, '← ' + t('nav.devices'))), h('p', { class: 'form-error', role: 'alert' }, err.message));
    return;
  }
  const facts = h('dl', { class: 'facts' });
  const tagList = h('ul', { class: 'tags', 'aria-label': t('devices.tags') });
  const tagInput = h('input', { name: 'tag', autocomplete: 'off' });
  const aliasInput = h('input', { name: 'alias', autocomplete: 'off' });
  const testTitle = h('input', { name: 'testTitle', value: t('devices.test.default') });
  const tagForm = h('form', { class: 'inline', onsubmit: async (e) => { e.preventDefault(); await changeTags({ add: [tagInput.value.trim()] }, tagForm); tagInput.value = ''; } },
    field(t('devices.addTag'), tagInput, { field: 'add' }), h('button', { type: 'submit' }, t('devices.add')));
  const aliasForm = h('form', { class: 'inline', onsubmit: async (e) => {
    e.preventDefault(); clearErrors(aliasForm);
    try { show(await api('PATCH', `/v1/installations/${encodeURIComponent(d.id)}`, { alias: aliasInput.value.trim() || null })); toast(t('devices.saved')); }
    catch (err) { showError(aliasForm, err); }
  } }, field(t('devices.alias'), aliasInput, { field: 'alias' }), h('button', { type: 'submit' }, t('devices.save')));
  const testForm = h('form', { class: 'inline', onsubmit: async (e) => {
    e.preventDefault(); clearErrors(testForm);
    try {
      const r = await api('POST', '/v1/pushes', { target: { installationIds: [d.installationId] }, content: { alert: { title: testTitle.value } } });
      go(`#/pushes/${encodeURIComponent(r.id)}`);
    } catch (err) { showError(testForm, err); }
  } }, field(t('devices.test.title'), testTitle, { field: 'content.alert.title' }), h('button', { type: 'submit' }, t('devices.test')),
    h('p', { class: 'form-error', role: 'alert', hidden: true }));
  main.append(h('p', {}, h('a', { href: '#/devices' }, '← ' + t('nav.devices'))), h('h1', {}, t('devices.device'), ' ', h('code', {}, d.installationId)),
    facts, h('h2', {}, t('devices.tags')), tagList, tagForm, aliasForm, h('h2', {}, t('devices.test')), testForm);
  const history = h('tbody', { id: 'device-history' });
  const historyPager = h('div', { class: 'pager' });
  main.insertBefore(h('section', { 'aria-labelledby': 'device-history-title' }, h('h2', { id: 'device-history-title' }, t('devices.history')),
    table([t('devices.history.push'), t('devices.history.created'), t('push.state'), t('push.outcome'), t('push.updated')], history), historyPager), facts.nextSibling);

  function show(rec) {
    d = rec;
    const rows = [['installationId', d.installationId], ['id', d.id], ['deviceToken', d.deviceToken], ['environment', d.environment],
      ['topic', d.topic], ['alias', d.alias], ['userId', d.userId], ['locale', d.locale], ['timeZone', d.timeZone], ['badge', d.badge],
      ['appVersion', d.appVersion], ['osVersion', d.osVersion], ['deviceModel', d.deviceModel], ['properties', JSON.stringify(d.properties)]];
    facts.replaceChildren(...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { class: k === 'deviceToken' ? 'token' : null }, v ?? '—')]),
      h('dt', {}, t('devices.active')), h('dd', { id: 'device-active' }, d.active ? t('yes') : t('devices.retired', { reason: d.inactiveReason || '' }), d.inactiveAt ? [' · ', time(d.inactiveAt)] : null),
      h('dt', {}, t('devices.lastSeen')), h('dd', {}, time(d.lastSeenAt)), h('dt', {}, t('push.updated')), h('dd', {}, time(d.updatedAt)));
    tagList.replaceChildren(...d.tags.map(tag => h('li', {}, tag, ' ', h('button', { type: 'button', class: 'link', 'aria-label': t('devices.removeTag', { tag }),
      onclick: () => changeTags({ remove: [tag] }, tagForm) }, '×'))));
    if (!d.tags.length) tagList.append(h('li', { class: 'hint' }, t('devices.noTags')));
    aliasInput.value = d.alias || '';
  }
  async function changeTags(change, form) {
    clearErrors(form);
    try { show(await api('POST', `/v1/installations/${encodeURIComponent(d.id)}/tags`, { add: [], remove: [], ...change })); }
    catch (err) { showError(form, err); }
  }
  // The pushes it was targeted by, newest first (GET /v1/installations/{id}/deliveries), 10 a page.
  let historyCursor = null;
  async function loadHistory() {
    try {
      const r = await api('GET', `/v1/installations/${encodeURIComponent(d.id)}/deliveries` + qs({ cursor: historyCursor, limit: 10 }));
      for (const x of r.deliveries) history.append(h('tr', { 'data-push': x.pushId, 'data-state': x.state },
        h('td', {}, h('a', { href: `#/pushes/${encodeURIComponent(x.pushId)}` }, x.summary || x.pushId)), h('td', {}, time(x.pushCreatedAt)),
        h('td', {}, x.state), h('td', {}, x.reason || (x.status ? String(x.status) : '—')), h('td', {}, time(x.updatedAt))));
      historyCursor = r.nextCursor;
      historyPager.replaceChildren(historyCursor ? moreButton(t('list.more'), loadHistory) : h('p', { class: 'hint' }, history.children.length ? t('list.end') : t('devices.history.none')));
    } catch (err) { historyPager.replaceChildren(h('p', { class: 'form-error', role: 'alert' }, err.message)); }
  }
  show(d);
  await loadHistory();
}
