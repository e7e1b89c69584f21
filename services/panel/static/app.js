'use strict';
// The panel's only script. Everything rendered from data goes through textContent, never innerHTML.
(function () {
  const $ = (id) => document.getElementById(id);
  const state = { user: null, keysCursor: null, accountsCursor: null };

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  async function api(method, path, body) {
    const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch {
      throw new ApiError(0, 'network', 'The panel could not be reached. Check your connection and try again.');
    }
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      const err = (data && data.error) || {};
      if (res.status === 401 && path !== '/panel/api/login') showLogin();
      let message = err.message || `Request failed (${res.status})`;
      if (err.code === 'rate_limited') message = `Too many attempts. Try again in ${res.headers.get('Retry-After') || 'a few'} seconds.`;
      if (err.code === 'invalid_credentials') message = 'Wrong email or password.';
      if (err.code === 'insufficient_credits') message = 'Not enough credits: each account uses one credit.';
      throw new ApiError(res.status, err.code || 'error', message);
    }
    return data;
  }

  function el(tag, options = {}, children = []) {
    const node = document.createElement(tag);
    if (options.text !== undefined) node.textContent = String(options.text);
    if (options.className) node.className = options.className;
    for (const [name, value] of Object.entries(options.attrs || {})) node.setAttribute(name, value);
    for (const child of children) node.append(child);
    return node;
  }

  const formatDate = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
  const formatMoney = (n) => Number(n).toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

  let noticeTimer;
  function notify(message, isError = false) {
    const notice = $('notice');
    notice.textContent = message;
    notice.classList.toggle('is-error', isError);
    notice.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { notice.hidden = true; }, 6000);
  }

  function showError(id, err) {
    const node = $(id);
    node.textContent = err ? err.message : '';
    node.hidden = !err;
  }

  function showLogin() {
    state.user = null;
    $('app-view').hidden = true;
    $('whoami').hidden = true;
    $('login-view').hidden = false;
    $('new-token').hidden = true;
    $('new-token-value').textContent = '';
    $('login-email').focus();
  }

  function showApp(user) {
    state.user = user;
    $('login-view').hidden = true;
    $('app-view').hidden = false;
    $('whoami').hidden = false;
    $('whoami-text').textContent = `${user.email} (${user.role})`;
    const canManage = user.role === 'owner' || user.role === 'admin';
    for (const node of document.querySelectorAll('.manage-only')) node.hidden = !canManage;
    loadKeys(true);
    loadAccounts(true);
  }

  // ---- keys
  function keyRow(key) {
    const status = key.revoked_at ? el('span', { className: 'badge revoked', text: 'revoked' }) : el('span', { className: 'badge', text: 'active' });
    const scopes = el('td', {}, key.scopes.length ? key.scopes.map((s) => el('span', { className: 'scope', text: s })) : [el('span', { className: 'muted', text: 'none' })]);
    const actions = el('td');
    const canManage = state.user && (state.user.role === 'owner' || state.user.role === 'admin');
    if (!key.revoked_at && canManage) {
      const button = el('button', { className: 'danger', text: 'Revoke', attrs: { type: 'button', 'aria-label': `Revoke key ${key.name}` } });
      button.addEventListener('click', () => revokeKey(key, button));
      actions.append(button);
    }
    return el('tr', { attrs: { 'data-key-id': key.id } }, [
      el('td', { text: key.name }),
      el('td', {}, [el('code', { text: key.prefix })]),
      scopes,
      el('td', { text: formatDate(key.created_at) }),
      el('td', { text: formatDate(key.last_used_at) }),
      el('td', {}, [status]),
      actions,
    ]);
  }

  async function loadKeys(reset) {
    const query = new URLSearchParams({ limit: '50' });
    if (!reset && state.keysCursor) query.set('cursor', state.keysCursor);
    try {
      const page = await api('GET', `/panel/api/keys?${query}`);
      const body = $('keys-body');
      if (reset) body.replaceChildren();
      for (const key of page.data) body.append(keyRow(key));
      state.keysCursor = page.next_cursor;
      $('keys-more').hidden = !page.next_cursor;
      $('keys-empty').hidden = body.children.length > 0;
    } catch (err) {
      if (err.status !== 401) notify(err.message, true);
    }
  }

  async function revokeKey(key, button) {
    if (!window.confirm(`Revoke the key "${key.name}" (${key.prefix}…)? Requests using it will fail at once.`)) return;
    button.disabled = true;
    try {
      const revoked = await api('POST', `/api-keys/${encodeURIComponent(key.id)}/revoke`);
      const row = document.querySelector(`tr[data-key-id="${CSS.escape(key.id)}"]`);
      if (row) row.replaceWith(keyRow({ ...key, ...revoked }));
      notify(`Key "${key.name}" revoked.`);
    } catch (err) {
      button.disabled = false;
      if (err.status !== 401) notify(err.message, true);
    }
  }

  $('key-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = form.elements.name.value.trim();
    if (!name) return showError('key-form-error', new Error('Give the key a name.'));
    const scopes = [...form.querySelectorAll('input[name=scopes]:checked')].map((box) => box.value);
    const submit = form.querySelector('button[type=submit]');
    submit.disabled = true;
    try {
      const created = await api('POST', '/panel/api/keys', { name, scopes });
      showError('key-form-error', null);
      form.elements.name.value = '';
      $('new-token-value').textContent = created.token;
      $('new-token').hidden = false;
      $('copy-token').textContent = 'Copy';
      $('copy-token').focus();
      await loadKeys(true);
    } catch (err) {
      if (err.status !== 401) showError('key-form-error', err);
    } finally {
      submit.disabled = false;
    }
  });

  $('copy-token').addEventListener('click', async () => {
    const token = $('new-token-value').textContent;
    try {
      await navigator.clipboard.writeText(token);
      $('copy-token').textContent = 'Copied';
    } catch {
      // Clipboard access can be refused (e.g. plain HTTP); select the text for a manual copy.
      const range = document.createRange();
      range.selectNodeContents($('new-token-value'));
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      $('copy-token').textContent = 'Press Ctrl+C';
    }
  });

  $('dismiss-token').addEventListener('click', () => {
    $('new-token').hidden = true;
    $('new-token-value').textContent = '';
  });

  // ---- accounts
  function accountRow(a) {
    return el('tr', {}, [
      el('td', {}, [el('code', { text: a.number })]),
      el('td', {}, [el('span', { className: `badge ${a.status}`, text: a.status })]),
      el('td', { text: a.program }),
      el('td', { className: 'num', text: `${formatMoney(a.balance)} ${a.currency}` }),
      el('td', { className: 'num', text: formatMoney(a.equity) }),
      el('td', { text: a.trader_id ? a.trader_id : 'unassigned', className: a.trader_id ? '' : 'muted' }),
      el('td', { text: formatDate(a.created_at) }),
    ]);
  }

  async function loadAccounts(reset) {
    const query = new URLSearchParams({ limit: '50' });
    if (!reset && state.accountsCursor) query.set('cursor', state.accountsCursor);
    try {
      const page = await api('GET', `/panel/api/accounts?${query}`);
      const body = $('accounts-body');
      if (reset) body.replaceChildren();
      for (const account of page.data) body.append(accountRow(account));
      state.accountsCursor = page.next_cursor;
      $('accounts-more').hidden = !page.next_cursor;
      $('accounts-empty').hidden = body.children.length > 0;
    } catch (err) {
      if (err.status !== 401) notify(err.message, true);
    }
  }

  $('accounts-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const count = Number(form.elements.count.value);
    if (!Number.isInteger(count) || count < 1 || count > 100) {
      return showError('accounts-form-error', new Error('Choose a whole number from 1 to 100.'));
    }
    const body = { count };
    const program = form.elements.program.value.trim();
    if (program) body.program = program;
    const balance = form.elements.initial_balance.value.trim();
    if (balance) body.initial_balance = Number(balance);
    const submit = form.querySelector('button[type=submit]');
    submit.disabled = true;
    try {
      const created = await api('POST', '/panel/api/accounts', body);
      showError('accounts-form-error', null);
      await loadAccounts(true);
      notify(`${created.data.length} account${created.data.length === 1 ? '' : 's'} created.`);
    } catch (err) {
      if (err.status !== 401) showError('accounts-form-error', err);
    } finally {
      submit.disabled = false;
    }
  });

  $('keys-more').addEventListener('click', () => loadKeys(false));
  $('accounts-more').addEventListener('click', () => loadAccounts(false));

  // ---- session
  $('login-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const email = form.elements.email.value.trim();
    const password = form.elements.password.value;
    if (!email || !password) return showError('login-error', new Error('Enter your email and password.'));
    const submit = form.querySelector('button[type=submit]');
    submit.disabled = true;
    try {
      const { user } = await api('POST', '/panel/api/login', { email, password });
      form.elements.password.value = '';
      showError('login-error', null);
      showApp(user);
    } catch (err) {
      showError('login-error', err);
    } finally {
      submit.disabled = false;
    }
  });

  $('logout').addEventListener('click', async () => {
    try {
      await api('POST', '/panel/api/logout');
    } finally {
      showLogin();
    }
  });

  api('GET', '/panel/api/me').then(({ user }) => showApp(user), () => showLogin());
})();
