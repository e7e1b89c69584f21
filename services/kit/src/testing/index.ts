/**
 * @propdesk/kit/testing: what tests and benchmarks share and production code never imports (a
 * database per suite, a TCP proxy to cut, a Redis of its own, throwaway certificates, an HTTPS
 * receiver, an HTTP/2 GET, service doubles, child processes, waiting on a condition, a lock between jest workers).
 */
export * from './buf-curl';
export * from './certificates';
export * from './http2-get';
export * from './https-receiver';
export * from './own-redis-server';
export * from './ports';
export * from './processes';
export * from './servers-check';
export * from './service-double';
export * from './tcp-proxy';
export * from './test-database';
export * from './test-lock';
export * from './wait-until';
