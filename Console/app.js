import { t, language, setLanguage, languages, applyDocumentLanguage } from './i18n.js';
import { api, session, resume, signIn, signOut } from './api.js';
import { h, field, showError, clearErrors, select, toast } from './ui.js';

const screens = {
  overview: () => import('./overview.js'),
  compose: () => import('./compose.js'),
  pushes: () => import('./pushes.js'),
  devices: () => import('./devices.js'),
  apps: () => import('./apps.js'),
  webhooks: () => import('./webhooks.js'),
  simulator: () => import('./simulator.js'),
};
const nav = ['overview', 'compose', 'pushes', 'devices', 'apps', 'webhooks', 'simulator'];
const root = document.getElementById('app');
let apps = [];

async function start() {
  applyDocumentLanguage();
  window.addEventListener('herald:signed-out', () => showSignIn(t('signin.expired')));
  window.addEventListener('hashchange', render);
  // The screen's code loads while the session is checked, not after.
  screens[location.hash.replace(/^#\/?/, '').split('/')[0]]?.().catch(() => {});
  if (await resume()) await enter(); else showSignIn();
}

function showSignIn(notice) {
  Object.assign(session, { csrf: null, role: null });
  const key = h('input', { type: 'password', name: 'key', autocomplete: 'off', required: true, spellcheck: 'false' });
  const form = h('form', { class: 'signin card', 'aria-labelledby': 'signin-title', onsubmit: async (e) => {
    e.preventDefault(); clearErrors(form);
    const button = form.querySelector('button[type=submit]'); button.disabled = true;
    try { await signIn(key.value.trim()); key.value = ''; await enter(); }
    catch (err) { showError(form, err.field ? err : { field: 'key', message: err.message }); key.focus(); }
    finally { button.disabled = false; }
  } },
    h('h1', { id: 'signin-title' }, h('img', { src: '/console/icon.svg', alt: '', width: 28, height: 28 }), ' ', t('app.name')),
    notice ? h('p', { class: 'notice' }, notice) : null,
    field(t('signin.key'), key, { field: 'key', hint: t('signin.hint') }),
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('button', { type: 'submit' }, t('signin.submit')),
    languagePicker());
  root.replaceChildren(h('main', { id: 'main', class: 'signin-page' }, form));
  key.focus();
}

function languagePicker() {
  const s = select(languages.map(l => [l.code, l.name]), language(), { 'aria-label': t('nav.language'), class: 'language',
    onchange: () => { setLanguage(s.value); session.csrf ? render() : showSignIn(); } });
  return s;
}

async function enter() {
  apps = [];
  if (session.role === 'admin') {
    apps = (await api('GET', '/v1/apps', undefined, { app: false })).apps;
    if (!apps.some(a => a.id === session.app)) session.app = apps[0]?.id || null;
  } else {
    try { apps = [await api('GET', `/v1/apps/${encodeURIComponent(session.appId)}`, undefined, { app: false })]; } catch { apps = [{ id: session.appId, name: session.appId }]; }
  }
  if (!location.hash) location.hash = '#/compose';
  render();
}

export function currentApp() { return apps.find(a => a.id === session.app) || null; }
export function allApps() { return apps; }
export async function reloadApps() { if (session.role === 'admin') apps = (await api('GET', '/v1/apps', undefined, { app: false })).apps; }

async function render() {
  if (!session.csrf) return;
  const [name = 'compose', ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  const screen = screens[name] ? name : 'compose';
  const main = h('main', { id: 'main', tabindex: '-1' });
  const appPicker = session.role === 'admin'
    ? select(apps.map(a => [a.id, `${a.name} (${a.id})`]), session.app, { 'aria-label': t('nav.app'), class: 'app-picker',
        onchange: (e) => { session.app = e.target.value; render(); } })
    : h('span', { class: 'app-name' }, currentApp()?.name || session.appId);
  const header = h('header', { class: 'top' },
    h('a', { class: 'brand', href: '#/overview' }, h('img', { src: '/console/icon.svg', alt: '', width: 24, height: 24 }), t('app.name')),
    h('nav', { 'aria-label': t('nav.main') }, h('ul', {}, nav.map(n => h('li', {},
      h('a', { href: `#/${n}`, 'aria-current': n === screen ? 'page' : false }, t('nav.' + n)))))),
    h('div', { class: 'who' }, appPicker, h('span', { class: 'role' }, t('role.' + session.role)), languagePicker(),
      h('button', { type: 'button', class: 'secondary', onclick: async () => { await signOut().catch(() => {}); showSignIn(t('signin.signedOut')); } }, t('nav.signOut'))));
  root.replaceChildren(header, main);
  document.title = `${t('nav.' + screen)} · ${t('app.name')}`;
  if (!session.app && screen !== 'apps' && screen !== 'simulator') {
    main.append(h('p', { class: 'notice' }, t('apps.none')));
    return;
  }
  try {
    const module = await screens[screen]();
    await module.render(main, rest.map(decodeURIComponent));
    // When the screen can be used: what the benchmark reads (performance.getEntriesByName).
    performance.mark('herald:interactive:' + screen);
  } catch (err) {
    main.append(h('p', { class: 'form-error', role: 'alert' }, err.message));
  }
}

export function go(hash) { if (location.hash === hash) render(); else location.hash = hash; }

start().catch(err => toast(err.message, true));
