import type { Request, RequestHandler } from 'express';
import { AppError } from '@propdesk/kit';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return req.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Whether a state-changing request comes from the panel's own pages. Browsers send
 * Sec-Fetch-Site (unforgeable by page scripts); older ones only Origin, which must name this host
 * (the raw Host, or X-Forwarded-Host when the proxy is trusted). Non-browser clients send
 * neither, and carry no ambient cookie a third site could ride on.
 */
export function isSameOrigin(req: Request): boolean {
  const fetchSite = req.get('sec-fetch-site');
  if (fetchSite !== undefined) return fetchSite === 'same-origin' || fetchSite === 'none';
  const origin = req.get('origin');
  if (origin === undefined) return true;
  const originHost = hostOf(origin);
  if (originHost === undefined) return false;
  const hosts = [req.get('host'), req.get('x-forwarded-host') !== undefined && req.host ? req.host : undefined]
    .filter((h): h is string => typeof h === 'string')
    .map((h) => h.toLowerCase());
  return hosts.includes(originHost);
}

/**
 * CSRF defence for every state-changing route, together with the SameSite=Strict cookie:
 * cross-site requests are refused, and a body must be JSON (a cross-site HTML form cannot send
 * application/json without a CORS preflight, which this app never grants).
 */
export const csrfGuard: RequestHandler = (req, _res, next) => {
  if (SAFE_METHODS.has(req.method)) return next();
  if (!isSameOrigin(req)) return next(new AppError('forbidden', 'cross-site requests are not allowed'));
  if (hasBody(req) && !req.is('application/json')) {
    return next(new AppError('invalid_request', 'the request body must be application/json', 'content-type'));
  }
  next();
};
