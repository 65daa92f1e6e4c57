import { t } from './i18n.js';
import { api, session } from './api.js';
import { h, field, select, table, time, toast, showError, clearErrors } from './ui.js';
import { currentApp, reloadApps, go } from './app.js';

// Apps and credentials: create an app (admin), rotate its keys (the new key is shown once), upload a .p8
// token key or a .p12 certificate per environment, and the state of each credential.
export async function render(main) {
  main.append(h('h1', {}, t('nav.apps')));
  const secrets = h('div', { class: 'secrets', 'aria-live': 'polite' });
  if (session.role === 'admin') main.append(createForm(secrets));
  main.append(secrets);
  const app = currentApp();
  if (!app) return;
  const appId = app.id;
  main.append(h('h2', {}, app.name, ' ', h('code', {}, appId)),
    h('dl', { class: 'facts' }, h('dt', {}, 'topic'), h('dd', {}, app.topic || '—'), h('dt', {}, t('apps.timeZone')), h('dd', {}, app.defaultTimeZone),
      h('dt', {}, t('apps.paused')), h('dd', {}, app.paused ? t('apps.pausedBecause', { reason: app.paused.reason }) : t('no')),
      h('dt', {}, t('apps.created')), h('dd', {}, time(app.createdAt))));
  const keys = h('tbody');
  main.append(h('h3', {}, t('apps.keys')), table(['id', t('apps.scope'), t('apps.hint'), t('apps.created'), t('apps.revoked')], keys),
    h('div', { class: 'actions' }, ['master', 'client'].map(scope => h('button', { type: 'button', class: 'secondary', onclick: async () => {
      if (!confirm(t('apps.rotate.confirm', { scope }))) return;
      try {
        const r = await api('POST', `/v1/apps/${encodeURIComponent(appId)}/keys/${scope}/rotate`, undefined, { app: false });
        secrets.replaceChildren(once(t('apps.newKey', { scope }), r.key));
        if (session.role === 'master' && scope === 'master') toast(t('apps.rotated.self'));
        await loadKeys();
      } catch (err) { toast(err.message, true); }
    } }, t('apps.rotate', { scope })))));
  const creds = h('tbody');
  main.append(h('h3', {}, t('apps.credentials')), table([t('apps.environment'), t('apps.type'), 'keyId / teamId', 'topic', t('apps.updated'), t('apps.cred.state')], creds), uploadForm(appId, () => loadCredentials()));
  async function loadKeys() {
    const r = await api('GET', `/v1/apps/${encodeURIComponent(appId)}/keys`, undefined, { app: false });
    keys.replaceChildren(...r.keys.map(k => h('tr', {}, h('td', {}, h('code', {}, k.id)), h('td', {}, k.scope), h('td', {}, h('code', {}, k.hint + '…')),
      h('td', {}, time(k.createdAt)), h('td', {}, time(k.revokedAt)))));
  }
  async function loadCredentials() {
    const r = await api('GET', `/v1/apps/${encodeURIComponent(appId)}/credentials`, undefined, { app: false });
    creds.replaceChildren(...(r.credentials.length ? r.credentials.map(c => h('tr', {}, h('td', {}, c.environment), h('td', {}, c.type),
      h('td', {}, [c.keyId, c.teamId].filter(Boolean).join(' / ') || '—'), h('td', {}, c.topic || '—'), h('td', {}, time(c.updatedAt)), credentialState(c)))
      : [h('tr', {}, h('td', { colspan: 6, class: 'hint' }, t('apps.noCredentials')))]));
  }
  const compat = h('tbody');
  main.append(h('h3', {}, t('apps.compat')), table([t('apps.compat.service'), t('apps.compat.publicId'), t('apps.compat.hints'), t('apps.updated')], compat),
    h('p', { class: 'hint' }, t('apps.compat.hint')));
  async function loadCompat() {
    compat.replaceChildren(...await Promise.all(compatServices.map(async ({ name, path, id, command }) => {
      try {
        const r = await api('GET', `/v1/apps/${encodeURIComponent(appId)}/${path}`, undefined, { app: false });
        return h('tr', { dataset: { compat: path } }, h('td', {}, name), h('td', {}, h('code', {}, r[id])),
          h('td', {}, hints(r).map(([k, v]) => h('span', {}, k, ' ', h('code', {}, v), ' '))), h('td', {}, time(r.updatedAt)));
      } catch (err) {
        if (err.status !== 404) throw err;
        return h('tr', { dataset: { compat: path } }, h('td', {}, name), h('td', { colspan: 3, class: 'hint' }, t('apps.compat.notSet'), ' ',
          h('code', {}, command.replace('{app}', appId))));
      }
    })));
  }
  await Promise.all([loadKeys(), loadCredentials(), loadCompat()]);
}

// LeanCloud and JPush identities (read-only here: the secrets are set with the CLI, never through a browser).
const compatServices = [
  { name: 'LeanCloud', path: 'leancloud', id: 'appId',
    command: 'LEANCLOUD_APP_KEY=… LEANCLOUD_MASTER_KEY=… herald apps leancloud set --app {app} --leancloud-app-id <LeanCloud App ID> --api-key <key>' },
  { name: 'JPush', path: 'jpush', id: 'appKey',
    command: 'JPUSH_MASTER_SECRET=… herald apps jpush set --app {app} --app-key <JPush App Key> --api-key <key>' },
];
const hints = (r) => r.hints ? Object.entries(r.hints) : r.masterSecretHint ? [['masterSecret', r.masterSecretHint]] : [];

function once(label, secret) {
  const out = h('output', { class: 'secret' }, secret);
  return h('div', { class: 'notice', role: 'status' }, h('p', {}, label), out,
    h('button', { type: 'button', class: 'secondary', onclick: () => navigator.clipboard?.writeText(secret).then(() => toast(t('apps.copied'))) }, t('apps.copy')));
}

function createForm(secrets) {
  const name = h('input', { name: 'name', required: true, autocomplete: 'off' });
  const topic = h('input', { name: 'topic', placeholder: 'com.example.app', autocomplete: 'off' });
  const form = h('form', { class: 'inline card', onsubmit: async (e) => {
    e.preventDefault(); clearErrors(form);
    try {
      const r = await api('POST', '/v1/apps', { name: name.value.trim(), ...(topic.value.trim() ? { topic: topic.value.trim() } : {}) }, { app: false });
      secrets.replaceChildren(once(t('apps.newKey', { scope: 'master' }), r.keys.master), once(t('apps.newKey', { scope: 'client' }), r.keys.client));
      await reloadApps(); session.app = r.id; name.value = ''; topic.value = '';
      toast(t('apps.createdToast', { name: r.name }));
      const keep = secrets; go('#/apps'); setTimeout(() => document.querySelector('main')?.prepend(keep), 50);
    } catch (err) { showError(form, err); }
  } }, h('h2', {}, t('apps.create')), field(t('apps.name'), name, { field: 'name' }), field('topic', topic, { field: 'topic' }),
    h('p', { class: 'form-error', role: 'alert', hidden: true }), h('button', { type: 'submit' }, t('apps.create')));
  return form;
}

function uploadForm(appId, done) {
  const environment = select([['production', 'production'], ['sandbox', 'sandbox']], 'production', { name: 'environment' });
  const kind = select([['token', t('apps.p8')], ['certificate', t('apps.p12')]], 'token', { name: 'kind' });
  const file = h('input', { type: 'file', name: 'file', accept: '.p8,.p12,.pem' });
  const keyId = h('input', { name: 'keyId', autocomplete: 'off' });
  const teamId = h('input', { name: 'teamId', autocomplete: 'off' });
  const passphrase = h('input', { name: 'passphrase', type: 'password', autocomplete: 'off' });
  const form = h('form', { class: 'card', onsubmit: async (e) => {
    e.preventDefault(); clearErrors(form);
    const f = file.files[0];
    if (!f) { showError(form, { field: 'key', message: t('apps.file.missing') }); return; }
    const body = kind.value === 'token'
      ? { type: 'token', keyId: keyId.value.trim(), teamId: teamId.value.trim(), key: await f.text() }
      : { type: 'certificate', p12: await base64(f), ...(passphrase.value ? { passphrase: passphrase.value } : {}) };
    try { await api('PUT', `/v1/apps/${encodeURIComponent(appId)}/credentials/${environment.value}`, body, { app: false }); toast(t('apps.uploaded')); form.reset(); await done(); }
    catch (err) { showError(form, err); }
  } }, h('h3', {}, t('apps.upload')),
    h('div', { class: 'row' }, field(t('apps.environment'), environment, { field: 'environment' }), field(t('apps.type'), kind, { field: 'type' }),
      field(t('apps.file'), file, { field: 'key' }), field('Key ID', keyId, { field: 'keyId' }), field('Team ID', teamId, { field: 'teamId' }),
      field(t('apps.passphrase'), passphrase, { field: 'passphrase' })),
    h('p', { class: 'form-error', role: 'alert', hidden: true }), h('button', { type: 'submit' }, t('apps.uploadButton')));
  return form;
}

async function base64(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

// How APNs last answered the credential: accepted or rejected (whichever came last, with both times), or
// not used since it was uploaded.
function credentialState(c) {
  const state = c.state || 'unused';
  return h('td', { class: 'credential-state', 'data-state': state }, h('strong', {}, t('apps.cred.' + state)),
    c.lastAcceptedAt ? [h('br'), t('apps.cred.lastAccepted'), ' ', time(c.lastAcceptedAt)] : null,
    c.lastRejectedAt ? [h('br'), t('apps.cred.lastRejected', { reason: c.lastRejectionReason || '' }), ' ', time(c.lastRejectedAt)] : null);
}
