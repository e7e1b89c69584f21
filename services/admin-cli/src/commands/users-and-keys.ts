import { API_KEY_SCOPES, AppError, KEY_LIFETIME_SECONDS, KEY_LIMIT_PER_MINUTE, modeNameOf } from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import { integerFlag, modeFlag, organizationId, requiredString, uuidFlag } from '../flags';
import type { Command } from './command';

/** SPEC sections 4 and 14, listed once in the kit. */
export const KNOWN_SCOPES = API_KEY_SCOPES;

const ROLES: Record<string, authv1.Role> = {
  owner: authv1.Role.ROLE_OWNER,
  admin: authv1.Role.ROLE_ADMIN,
  member: authv1.Role.ROLE_MEMBER,
};

function roleName(role: authv1.Role): string {
  return Object.entries(ROLES).find(([, value]) => value === role)?.[0] ?? 'member';
}

/** Comma-separated; empty or absent means no scopes. */
export function parseScopes(raw: string | undefined): string[] {
  const scopes = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const scope of scopes) {
    if (!(KNOWN_SCOPES as readonly string[]).includes(scope)) {
      throw new AppError('invalid_request', `unknown scope "${scope}" (known: ${KNOWN_SCOPES.join(', ')})`, 'scopes');
    }
  }
  return [...new Set(scopes)];
}

export const userCreate: Command = {
  flags: { org: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' } },
  async run(values, clients) {
    const org = organizationId(values);
    const email = requiredString(values, 'email');
    // Passwords are taken verbatim: trimming would silently change the secret.
    const password = values.password;
    if (typeof password !== 'string' || password === '') throw new AppError('invalid_request', '--password is required', 'password');
    const role = ROLES[requiredString(values, 'role')];
    if (role === undefined) throw new AppError('invalid_request', '--role must be owner, admin or member', 'role');
    const res = await clients.auth().createUser({ organizationId: org, email, password, role });
    if (!res.user) throw new AppError('internal_error', 'the auth service returned no user');
    return { id: res.user.id, email: res.user.email, role: roleName(res.user.role) };
  },
};

export const keyCreate: Command = {
  flags: { org: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, 'expires-in': { type: 'string' }, mode: { type: 'string' } },
  async run(values, clients) {
    const org = organizationId(values);
    const name = requiredString(values, 'name');
    const scopes = parseScopes(typeof values.scopes === 'string' ? values.scopes : undefined);
    const expiresInSeconds = values['expires-in'] === undefined ? undefined : integerFlag(values, 'expires-in', KEY_LIFETIME_SECONDS);
    const mode = modeFlag(values);
    const res = await clients.auth().createApiKey({ organizationId: org, mode, name, scopes, expiresInSeconds });
    const key = res.apiKey;
    if (!key) throw new AppError('internal_error', 'the auth service returned no key');
    // SPEC section 3's answer with the key's mode (SPEC 13); a key made with --expires-in also says when it expires.
    return {
      id: key.id,
      token: res.token,
      prefix: key.prefix,
      name: key.name,
      scopes: key.scopes,
      mode: modeNameOf(key.mode),
      ...(expiresInSeconds === undefined ? {} : { expires_at: key.expiresAt?.toISOString() ?? null }),
    };
  },
};

/** The key as key:set-limits answers it; a null limit is the gateway's default. */
function presentKey(key: authv1.ApiKey): object {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    scopes: key.scopes,
    mode: modeNameOf(key.mode),
    created_at: key.createdAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
    limits: { read: key.readPerMin ?? null, write: key.writePerMin ?? null },
  };
}

/** SPEC section 12: the key's own limits per minute, applied by every gateway before this answers. */
export const keySetLimits: Command = {
  flags: { key: { type: 'string' }, read: { type: 'string' }, write: { type: 'string' } },
  async run(values, clients) {
    const apiKeyId = uuidFlag(values, 'key');
    const readPerMin = integerFlag(values, 'read', KEY_LIMIT_PER_MINUTE);
    const writePerMin = integerFlag(values, 'write', KEY_LIMIT_PER_MINUTE);
    // An operator acts on any organization: no organization_id.
    const res = await clients.auth().setApiKeyLimits({ organizationId: '', apiKeyId, readPerMin, writePerMin });
    if (!res.apiKey) throw new AppError('internal_error', 'the auth service returned no key');
    return presentKey(res.apiKey);
  },
};

export const keyRevoke: Command = {
  flags: { org: { type: 'string' }, id: { type: 'string' } },
  async run(values, clients) {
    const res = await clients.auth().revokeApiKey({ organizationId: organizationId(values), apiKeyId: uuidFlag(values, 'id') });
    const key = res.apiKey;
    if (!key) throw new AppError('internal_error', 'the auth service returned no key');
    return { id: key.id, prefix: key.prefix, name: key.name, scopes: key.scopes, mode: modeNameOf(key.mode), revoked_at: key.revokedAt?.toISOString() ?? null };
  },
};
