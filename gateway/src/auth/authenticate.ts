import type { Request, Response } from 'express';
import { authv1 } from '@propdesk/proto';
import { apiKeyDisplayPrefix, AppError, livemodeOf, sha256Hex, withTraceContext, type CallOpts } from '@propdesk/kit';
import type { ServiceClient } from '../clients';
import { traceContextOf } from '../http/request-context';
import type { LimitDecision, Limits } from '../rate-limits';
import { monotonicMs, type KeyCache, type VerifiedKey } from './key-cache';
import type { InvalidationWatcher } from './invalidation-watcher';
import { clientIp, isWrite, setPrincipal, type ApiKeyPrincipal, type ExecutorPrincipal, type Scope } from './principal';

/** One constant body for unknown, malformed and revoked keys: byte-identical answers. */
const INVALID_API_KEY_MESSAGE = 'the API key is not valid';

const NOT_A_KEY = new Set(['invalid_api_key', 'unauthorized', 'not_found', 'invalid_request']);

export function setRateLimitHeaders(res: Response, decision: LimitDecision | undefined): void {
  if (decision === undefined) return;
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, decision.remaining)));
  res.setHeader('RateLimit-Reset', String(Math.max(0, decision.resetSeconds)));
}

function rateLimited(res: Response, decision: LimitDecision | undefined): AppError {
  setRateLimitHeaders(res, decision);
  res.setHeader('Retry-After', String(Math.max(1, Math.ceil(decision?.retryAfterSeconds ?? 1))));
  return new AppError('rate_limited', 'too many requests, retry later');
}

/** `Bearer <token>`; anything else is no credential at all (401 unauthorized). */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

export interface Authenticator {
  apiKey(req: Request, res: Response, scope: Scope | null): Promise<ApiKeyPrincipal>;
  /** An executor route; an API key there is counted in its own bucket and answered invalid_session. */
  executor(req: Request, res: Response): Promise<ExecutorPrincipal>;
  /**
   * A request that needs no credentials (the document, the executor login, an unknown route, a
   * method a path does not have): a valid API key, when one is sent, is counted in its own bucket
   * (SPEC 5: a valid key is never refused by the per-IP limit); anything else in the per-IP bucket.
   * `login` also counts the attempt in the stricter login bucket, whatever the key.
   */
  anonymous(req: Request, res: Response, login: boolean): Promise<void>;
}

/** Executor session tokens carry this prefix (SPEC 4); any other bearer may be an API key. */
const EXECUTOR_TOKEN_PREFIX = 'pfx_exec_';

/** What an executor session token resolves to: its account, with the account's organization and mode. */
export interface ExecutorSession {
  organizationId: string;
  livemode: boolean;
  accountNumber: string;
  sessionId: string;
}

export interface AuthenticatorDeps {
  auth: ServiceClient<authv1.AuthServiceClient>;
  executorSessions: (token: string, opts: CallOpts) => Promise<ExecutorSession>;
  cache: KeyCache;
  watcher: InvalidationWatcher;
  limits: Limits;
  callOpts: (req: Request) => CallOpts;
}

export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const { auth, cache, watcher, limits } = deps;
  /** A count in Redis is a span of the request's trace: its command starts in the request's context. */
  const inRequest = <T>(req: Request, count: () => Promise<T>): Promise<T> => withTraceContext(traceContextOf(req), count);

  const refuseInvalid = async (req: Request, res: Response, error: AppError): Promise<never> => {
    const decision = await inRequest(req, () => limits.onInvalid(clientIp(req)));
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) throw rateLimited(res, decision);
    throw error;
  };

  /** Trusted cache first (a hit: one hash, one Map lookup); otherwise one VerifyApiKey round trip. */
  const resolve = async (hash: string, req: Request): Promise<VerifiedKey | undefined> => {
    const covered = watcher.covered();
    const cached = covered ? cache.get(hash) : undefined;
    if (cached !== undefined) return cached;
    const epoch = cache.epoch;
    // Counted from before the call: the auth service measured the key's remaining time later than
    // this, so the cached entry runs out no later than the key does, whatever the clocks say.
    const askedAt = monotonicMs();
    try {
      const verified = await auth.call.verifyApiKey({ tokenSha256: hash }, deps.callOpts(req));
      const key: VerifiedKey = {
        keyId: verified.apiKeyId,
        organizationId: verified.organizationId,
        livemode: livemodeOf(verified.mode),
        scopes: new Set(verified.scopes),
        paid: verified.planStatus === authv1.PlanStatus.PLAN_STATUS_PAID,
        ...(verified.expiresInMs === undefined ? {} : { validUntil: askedAt + Number(verified.expiresInMs) }),
        ...(verified.readPerMin === undefined && verified.writePerMin === undefined
          ? {}
          : { limits: { readPerMin: verified.readPerMin, writePerMin: verified.writePerMin } }),
      };
      if (covered && watcher.covered()) cache.set(hash, key, epoch);
      return key;
    } catch (err) {
      if (err instanceof AppError && NOT_A_KEY.has(err.code)) return undefined;
      throw err;
    }
  };

  /**
   * Looks a bearer token up as an API key and, when it is one, counts the request in the key's
   * bucket (429 past it) and returns it; undefined for anything else, counted nowhere yet.
   * Malformed tokens are hashed and looked up too, so timing does not tell them apart. A client IP
   * over its limit still gets a lookup for a key that may be valid (cached, or its fingerprint
   * known): a valid key is never refused by the per-IP limit, while garbage keys from that IP are
   * answered 429 without reaching the key store.
   */
  const countValidKey = async (req: Request, res: Response, token: string): Promise<VerifiedKey | undefined> => {
    const hash = sha256Hex(token);
    const cachedValid = watcher.covered() && cache.has(hash);
    const before = await inRequest(req, () => limits.beforeLookup(clientIp(req), cachedValid || watcher.mayExist(hash) === true));
    if (before.action === 'refuse') throw rateLimited(res, before.decision);
    const key = await resolve(hash, req);
    if (key === undefined) return undefined;
    const decision = await inRequest(req, () => limits.onValid(key.keyId, isWrite(req.method), key.limits));
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) throw rateLimited(res, decision);
    return key;
  };

  /** A valid API key among the credentials of a request that needs none (or another kind). */
  const countOptionalKey = async (req: Request, res: Response, token: string | undefined): Promise<boolean> => {
    if (token === undefined || token.startsWith(EXECUTOR_TOKEN_PREFIX)) return false;
    const key = await countValidKey(req, res, token);
    if (key === undefined) return false;
    setPrincipal(req, { kind: 'api_key', keyId: key.keyId, keyPrefix: apiKeyDisplayPrefix(token), organizationId: key.organizationId, livemode: key.livemode });
    return true;
  };

  return {
    async apiKey(req, res, scope) {
      const token = bearerToken(req.headers.authorization);
      if (token === undefined) {
        await refuseInvalid(req, res, new AppError('unauthorized', 'an Authorization: Bearer <API key> header is required'));
      }
      const key = await countValidKey(req, res, token ?? '');
      if (key === undefined) return refuseInvalid(req, res, new AppError('invalid_api_key', INVALID_API_KEY_MESSAGE));
      // Test mode is free and always open (SPEC 13): only live keys need a completed plan purchase.
      if (!key.paid && key.livemode) throw new AppError('payment_required', 'the organization has no completed plan purchase');
      if (scope !== null && !key.scopes.has(scope)) throw new AppError('missing_scope', `this API key lacks the scope ${scope}`);
      const principal: ApiKeyPrincipal = { kind: 'api_key', keyId: key.keyId, keyPrefix: apiKeyDisplayPrefix(token ?? ''), organizationId: key.organizationId, livemode: key.livemode };
      setPrincipal(req, principal);
      return principal;
    },

    async executor(req, res) {
      const token = bearerToken(req.headers.authorization);
      if (token === undefined) {
        await refuseInvalid(req, res, new AppError('unauthorized', 'an Authorization: Bearer <executor session token> header is required'));
      }
      if (!token?.startsWith(EXECUTOR_TOKEN_PREFIX)) {
        const invalidSession = new AppError('invalid_session', 'the executor session is not valid');
        if (await countOptionalKey(req, res, token)) throw invalidSession;
        return refuseInvalid(req, res, invalidSession);
      }
      const before = await inRequest(req, () => limits.beforeLookup(clientIp(req), false));
      if (before.action === 'refuse') throw rateLimited(res, before.decision);
      let session: ExecutorSession;
      try {
        session = await deps.executorSessions(token ?? '', deps.callOpts(req));
      } catch (err) {
        if (err instanceof AppError && (err.code === 'invalid_session' || err.code === 'not_found' || err.code === 'unauthorized')) {
          return refuseInvalid(req, res, new AppError('invalid_session', 'the executor session is not valid'));
        }
        throw err;
      }
      const decision = await inRequest(req, () => limits.onValid(`exec:${session.sessionId}`, isWrite(req.method)));
      setRateLimitHeaders(res, decision);
      if (!decision.allowed) throw rateLimited(res, decision);
      const principal: ExecutorPrincipal = { kind: 'executor', ...session };
      setPrincipal(req, principal);
      return principal;
    },

    async anonymous(req, res, login) {
      const ip = clientIp(req);
      if (await countOptionalKey(req, res, bearerToken(req.headers.authorization))) {
        const onLoginAttempt = limits.onLoginAttempt?.bind(limits);
        if (!login || !onLoginAttempt) return;
        // Executor passwords are guessed per IP whatever API key comes along: the login bucket still counts.
        const attempt = await inRequest(req, () => onLoginAttempt(ip));
        if (!attempt.allowed) throw rateLimited(res, attempt);
        return;
      }
      const before = await inRequest(req, () => limits.beforeLookup(ip, false));
      if (before.action === 'refuse') throw rateLimited(res, before.decision);
      const decision = await inRequest(req, () => (login && limits.onLoginAttempt ? limits.onLoginAttempt(ip) : limits.onInvalid(ip)));
      setRateLimitHeaders(res, decision);
      if (!decision.allowed) throw rateLimited(res, decision);
    },
  };
}
