import { AppError, randomString, safeEqual, sha256Hex } from '@propdesk/kit';
import { findAccountWithSecret } from '../data/accounts';
import { findLiveSession, insertSession } from '../data/executor-sessions';
import { countRecentFailures, recordFailures, type FailureKind } from '../data/login-failures';
import { CLOSED_TO_TRADERS, refuseStatus, type Account } from '../domain/account';
import { generateExecutorPassword } from '../domain/passwords';
import type { AccountsDeps } from '../deps';

export const EXECUTOR_TOKEN_PREFIX = 'pfx_exec_';

const invalidCredentials = (): AppError => new AppError('invalid_credentials', 'wrong account number or password');
const invalidSession = (): AppError => new AppError('invalid_session', 'the session is not valid');

/** Only a well-formed positive number can name an account; anything else fails like a wrong password. */
function loginNumber(value: string): number | null {
  if (!/^[0-9]{1,16}$/.test(value ?? '')) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

// Opened for unknown accounts so that they cost what a known one does (decrypt + compare).
let decoy: { sealed: string } | null = null;

/**
 * Executor login with account number + password. Wrong number and wrong password are the same
 * invalid_credentials; failures are counted per account and per client IP in PostgreSQL (so every
 * replica shares them), and over either limit the answer is rate_limited before any check.
 */
export async function createExecutorSession(
  deps: AccountsDeps,
  input: { account: string; password: string; clientIp: string },
): Promise<{ token: string; expiresAt: Date }> {
  const { sequelize, config, secretBox } = deps;
  const number = loginNumber(input.account);
  const ip = (input.clientIp ?? '').trim().slice(0, 64);
  const window = config.EXECUTOR_LOGIN_WINDOW_SECONDS;
  const keys: Array<{ kind: FailureKind; key: string }> = [];
  if (number !== null) keys.push({ kind: 'account', key: String(number) });
  if (ip) keys.push({ kind: 'ip', key: ip });

  const [accountFailures, ipFailures] = await Promise.all([
    number !== null ? countRecentFailures(sequelize, 'account', String(number), window) : Promise.resolve(0),
    ip ? countRecentFailures(sequelize, 'ip', ip, window) : Promise.resolve(0),
  ]);
  if (accountFailures >= config.EXECUTOR_LOGIN_MAX_FAILURES_PER_ACCOUNT || ipFailures >= config.EXECUTOR_LOGIN_MAX_FAILURES_PER_IP) {
    throw new AppError('rate_limited', 'too many failed logins, try again later');
  }

  const found = number !== null ? await findAccountWithSecret(sequelize, number) : null;
  decoy ??= { sealed: secretBox.seal(generateExecutorPassword()) };
  const expected = secretBox.open(found ? found.sealedPassword : decoy.sealed);
  const matches = safeEqual(sha256Hex(input.password ?? ''), sha256Hex(expected));
  if (!found || !matches) {
    await recordFailures(sequelize, keys);
    throw invalidCredentials();
  }
  refuseStatus(found.account, CLOSED_TO_TRADERS, 'cannot be logged in to');

  const token = EXECUTOR_TOKEN_PREFIX + randomString(40);
  const session = await insertSession(sequelize, found.account.number, sha256Hex(token), config.EXECUTOR_SESSION_TTL_SECONDS);
  return { token, expiresAt: session.expiresAt };
}

/** Unknown, expired and revoked tokens are all invalid_session. */
export async function getExecutorSession(deps: AccountsDeps, input: { token: string }): Promise<{ account: Account; sessionId: string }> {
  const token = input.token ?? '';
  if (!token.startsWith(EXECUTOR_TOKEN_PREFIX) || token.length > 128) throw invalidSession();
  const session = await findLiveSession(deps.sequelize, sha256Hex(token));
  if (!session) throw invalidSession();
  const account = await findAccountByNumber(deps, session.accountNumber);
  if (!account) throw invalidSession();
  return { account, sessionId: session.id };
}

async function findAccountByNumber(deps: AccountsDeps, number: number): Promise<Account | null> {
  const found = await findAccountWithSecret(deps.sequelize, number);
  return found?.account ?? null;
}
