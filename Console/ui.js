import { t, formatTime, formatNumber } from './i18n.js';

// Builds elements from data without ever parsing HTML: text from the API can never become markup.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked') el.checked = !!v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

let uid = 0;
export const nextId = (p = 'f') => `${p}-${++uid}`;

// A labelled control with a slot for the API's error about `field` (shown next to it, announced).
export function field(label, control, { field: name, hint } = {}) {
  const id = control.id || (control.id = nextId());
  const err = h('p', { class: 'field-error', id: id + '-error', role: 'alert', hidden: true });
  const wrap = h('div', { class: 'field', dataset: name ? { field: name } : {} },
    h('label', { for: id }, label), control, hint ? h('p', { class: 'hint', id: id + '-hint' }, hint) : null, err);
  if (hint) control.setAttribute('aria-describedby', id + '-hint');
  return wrap;
}

export function clearErrors(root) {
  for (const e of root.querySelectorAll('.field-error')) { e.hidden = true; e.textContent = ''; }
  for (const c of root.querySelectorAll('[aria-invalid]')) c.removeAttribute('aria-invalid');
  const general = root.querySelector('.form-error');
  if (general) { general.hidden = true; general.textContent = ''; }
}

// Shows an API error next to the field it names (the closest documented ancestor path: the error for
// "content.localized.fr" lands on the "content.localized" field when no control is named exactly so).
export function showError(root, error) {
  clearErrors(root);
  let name = error.field;
  while (name) {
    const wrap = root.querySelector(`[data-field="${CSS.escape(name)}"]`);
    if (wrap) {
      const err = wrap.querySelector('.field-error');
      const control = wrap.querySelector('input, select, textarea');
      err.textContent = error.message; err.hidden = false;
      if (control) {
        control.setAttribute('aria-invalid', 'true');
        control.setAttribute('aria-describedby', [control.getAttribute('aria-describedby'), err.id].filter(Boolean).join(' '));
      }
      return wrap;
    }
    name = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : null;
  }
  const general = root.querySelector('.form-error');
  if (general) { general.textContent = error.message; general.hidden = false; return general; }
  toast(error.message, true);
  return null;
}

export function toast(message, isError = false) {
  const el = document.getElementById('toast');
  el.textContent = message; el.className = isError ? 'show error' : 'show';
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.className = ''; }, 5000);
}

export function debounce(fn, ms) {
  let timer;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}

export const select = (options, value, attrs = {}) =>
  h('select', attrs, options.map(([v, label]) => h('option', { value: v, selected: v === value }, label)));

export function table(columns, rows, { caption } = {}) {
  return h('table', {}, caption ? h('caption', {}, caption) : null,
    h('thead', {}, h('tr', {}, columns.map(c => h('th', { scope: 'col' }, c)))),
    rows instanceof HTMLTableSectionElement ? rows : h('tbody', {}, rows));
}

export const statusBadge = (status) => h('span', { class: `badge status-${status}` }, t('status.' + status));
export const time = (iso) => iso ? h('time', { datetime: iso }, formatTime(iso)) : '—';
export const num = (n) => formatNumber(n ?? 0);

// A "More" button for cursor-paged lists.
export function moreButton(label, onClick) {
  const b = h('button', { type: 'button', class: 'secondary', onclick: async () => { b.disabled = true; try { await onClick(b); } finally { b.disabled = false; } } }, label);
  return b;
}

// Repeats `fn` every `ms` while `el` is in the document.
export function poll(el, ms, fn) {
  const tick = async () => {
    if (!el.isConnected) return;
    try { if (await fn() === false) return; } catch (e) { /* shown by fn */ }
    if (el.isConnected) setTimeout(tick, ms);
  };
  setTimeout(tick, ms);
}
