// The console's only way to the server: Herald's own REST API, authenticated by the session cookie
// (HttpOnly, so this script never sees it) plus the session's CSRF token, kept in memory only.
export const session = { csrf: null, role: null, appId: null, app: null, expiresAt: null };

export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status; this.code = e.code || 'http_' + status; this.field = e.field || null;
  }
}

// `app`: false for routes that are not an app's (apps, simulator); otherwise the selected app, which an
// admin session names in X-Herald-App.
export async function api(method, path, body, { app = true } = {}) {
  const headers = { 'X-Herald-CSRF': session.csrf || 'signin', 'Accept': 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (app && session.role === 'admin' && session.app) headers['X-Herald-App'] = session.app;
  const response = await fetch(path, { method, headers, credentials: 'same-origin', cache: 'no-store',
    body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    const error = new ApiError(response.status, data);
    if (response.status === 401 && path !== '/v1/console/session') window.dispatchEvent(new CustomEvent('herald:signed-out'));
    throw error;
  }
  return data;
}

export async function resume() {
  try {
    const s = await api('GET', '/v1/console/session', undefined, { app: false });
    adopt(s); return true;
  } catch { return false; }
}

export async function signIn(key) {
  session.csrf = null;
  adopt(await api('POST', '/v1/console/session', { key }, { app: false }));
}

export async function signOut() {
  try { await api('DELETE', '/v1/console/session', undefined, { app: false }); } finally {
    Object.assign(session, { csrf: null, role: null, appId: null, app: null });
  }
}

function adopt(s) {
  Object.assign(session, { csrf: s.csrfToken, role: s.role, appId: s.appId, expiresAt: s.expiresAt });
  if (s.role === 'master') session.app = s.appId;
}

export const qs = (params) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, v);
  const s = p.toString();
  return s ? '?' + s : '';
};
