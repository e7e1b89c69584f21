import { match } from 'path-to-regexp';
import { ROUTES } from '../routes';
import { resolver, type Resolution } from './pipeline';
import type { Route } from './route';

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * What the resolver must answer, the slow way: every template of the API tried against the
 * path with Express's matcher and defaults (case-insensitive, optional trailing slash), the most
 * literal templates kept, then the method.
 */
function reference(routes: readonly Route[], method: string, path: string): Resolution {
  const literals = (route: Route) => route.path.split('/').filter((s) => s !== '' && !s.startsWith('{')).length;
  const matched = routes.flatMap((route) => {
    const found = match<Record<string, string>>(route.path.replace(/\{(\w+)\}/g, ':$1'), { decode: false, sensitive: false, trailing: true, end: true })(path);
    return found === false ? [] : [{ route, params: found.params }];
  });
  if (matched.length === 0) return { kind: 'not_found' };
  const most = Math.max(...matched.map((m) => literals(m.route)));
  const paths = matched.filter((m) => literals(m.route) === most);
  const hit = paths.find((m) => m.route.method === (method === 'HEAD' ? 'get' : method.toLowerCase()));
  if (hit) return { kind: 'route', route: hit.route, rawParams: hit.params };
  const methods = new Set(paths.map((m) => m.route.method.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  return { kind: 'method_not_allowed', allow: METHOD_ORDER.filter((m) => methods.has(m)).join(', ') };
}

/** Paths a client may send for a template: values in its parameters, other cases, a trailing slash, neighbours. */
function pathsFor(template: string): string[] {
  const filled = template.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'number' ? '1000001' : `x-${name}`));
  const segments = filled.split('/');
  return [
    filled,
    filled.toUpperCase(),
    `${filled}/`,
    `${filled}//`,
    `${filled}/extra`,
    segments.slice(0, -1).join('/') || '/',
    [...segments.slice(0, 2), 'nothing', ...segments.slice(3)].join('/'),
    [...segments.slice(0, 2), '%61ccounts', ...segments.slice(3)].join('/'),
    filled.replace('1000001', 'claim'),
  ];
}

describe('the /v1 route resolver', () => {
  const resolve = resolver(ROUTES);

  it('answers every path of every template, and its neighbours, as matching against every template would', () => {
    const paths = new Set(['/v1', '/v1/', '/V1/ACCOUNTS', '/v1/accounts/claim', '/v1/accounts/1000001/trader', ...ROUTES.flatMap((r) => pathsFor(r.path))]);
    let compared = 0;
    for (const path of paths) {
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        expect({ method, path, resolution: resolve(method, path) }).toEqual({ method, path, resolution: reference(ROUTES, method, path) });
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(ROUTES.length * 7 * 5);
  });

  it('routes by template, names no route for an unknown resource and lists the allowed methods', () => {
    expect(resolve('GET', '/V1/Accounts/')).toMatchObject({ kind: 'route', route: { method: 'get', path: '/v1/accounts' } });
    expect(resolve('GET', '/v1/accounts/1000001')).toMatchObject({ kind: 'route', route: { path: '/v1/accounts/{number}' }, rawParams: { number: '1000001' } });
    expect(resolve('GET', '/v1/nothing')).toEqual({ kind: 'not_found' });
    expect(resolve('DELETE', '/v1/accounts')).toEqual({ kind: 'method_not_allowed', allow: 'GET, HEAD, POST' });
  });
});
