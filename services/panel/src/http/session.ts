import type { CookieOptions, Request, RequestHandler, Response } from 'express';
import { AppError, currentContext, newRequestId, runWithContext } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { presentUser, type RoleName, type UserJson } from '../presenters';

export const SESSION_COOKIE = 'pd_session';
const MAX_TOKEN_LENGTH = 512;

export interface PanelSession {
  token: string;
  user: UserJson;
}

const sessions = new WeakMap<Request, PanelSession>();

export function sessionOf(req: Request): PanelSession {
  const session = sessions.get(req);
  if (!session) throw new AppError('unauthorized', 'sign in to the panel first');
  return session;
}

/** The value of one cookie; other cookies and malformed pairs are ignored. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    try {
      return decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export function sessionToken(req: Request): string | undefined {
  const token = readCookie(req.get('cookie'), SESSION_COOKIE);
  return token && token.length <= MAX_TOKEN_LENGTH ? token : undefined;
}

/** Secure whenever the browser reached us over HTTPS (req.secure honours a trusted X-Forwarded-Proto). */
export function cookieOptions(req: Request): CookieOptions {
  return { httpOnly: true, sameSite: 'strict', path: '/', secure: req.secure };
}

export function setSessionCookie(req: Request, res: Response, token: string, expiresAt: Date | undefined): void {
  res.cookie(SESSION_COOKIE, token, { ...cookieOptions(req), ...(expiresAt ? { expires: expiresAt } : {}) });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, cookieOptions(req));
}

const SESSION_REJECTED = new Set(['unauthorized', 'invalid_session', 'invalid_credentials', 'not_found', 'invalid_request']);

/**
 * Only the session cookie authenticates here; an Authorization header (an API key) is ignored
 * on purpose: a bearer key is not a panel session.
 */
export function requireSession(clients: PanelClients): RequestHandler {
  return async (req, _res, next) => {
    const token = sessionToken(req);
    if (!token) throw new AppError('unauthorized', 'sign in to the panel first');
    let res;
    try {
      res = await clients.auth.getSession({ sessionToken: token });
    } catch (err) {
      if (err instanceof AppError && SESSION_REJECTED.has(err.code)) {
        throw new AppError('unauthorized', 'the session is not valid; sign in again');
      }
      throw err;
    }
    if (!res.user) throw new AppError('unauthorized', 'the session is not valid; sign in again');
    const user = presentUser(res.user);
    sessions.set(req, { token, user });
    // From here every call to a service says who acts and from where (the audit log's actor and
    // IP, SPEC 14): the user, by id and email, and the client's address as this panel sees it.
    const context = currentContext() ?? { requestId: newRequestId() };
    runWithContext({ ...context, actor: { type: 'user', id: user.id, label: user.email }, ip: req.ip }, () => next());
  };
}

export function requireRole(...roles: RoleName[]): RequestHandler {
  return (req, _res, next) => {
    const { user } = sessionOf(req);
    if (!roles.includes(user.role)) throw new AppError('forbidden', `this needs the ${roles.join(' or ')} role`);
    next();
  };
}
