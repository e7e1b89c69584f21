/**
 * Four projects, one command (`npm test`, or plain `npx jest`):
 *  - unit: suites that start no server, database or process;
 *  - integration: services/* and gateway suites against real PostgreSQL and Redis, servers on port 0;
 *  - e2e: test/**, whole stacks in process, real HTTP and gRPC;
 *  - serial: suites that must not overlap one another (fixed ports, real process stacks whose
 *    processes and ports they scan): one at a time, in a worker of their own, beside the others
 *    (jest.runner.js).
 * The others run in parallel: each suite creates its own database and Redis key prefix. What suites
 * share besides (the built panel, which `npm start` builds again) is guarded by holdTestLock of
 * @propdesk/kit/testing.
 * `--selectProjects unit` (or integration, e2e, serial) runs one of them.
 */
const common = {
  testEnvironment: 'node',
  runner: '<rootDir>/jest.runner.js',
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: '<rootDir>/tsconfig.jest.json' }],
  },
  moduleNameMapper: {
    '^@propdesk/kit$': '<rootDir>/services/kit/src/index.ts',
    '^@propdesk/kit/telemetry$': '<rootDir>/services/kit/src/telemetry/index.ts',
    '^@propdesk/kit/testing$': '<rootDir>/services/kit/src/testing/index.ts',
    '^@propdesk/proto$': '<rootDir>/proto/index.ts',
    '^@propdesk/sdk$': '<rootDir>/sdk/src/index.ts',
  },
};
const IGNORED = ['/node_modules/', '/dist/'];
const SOURCES = ['<rootDir>/services', '<rootDir>/gateway'];

/** Pure suites: domain rules, mappers, codecs, in-memory structures. */
const UNIT = [
  '/src/(.+/)?domain/[^/]+\\.test\\.ts$',
  '/services/kit/src/(cursor|errors|ids|issue-message|resources|retention|rest/account)\\.test\\.ts$',
  '/services/accounts/src/trading/engine/(ring|marker)\\.test\\.ts$',
  '/services/webhooks/src/verify\\.test\\.ts$',
  '/services/market-feed/src/random-walk\\.test\\.ts$',
  '/services/panel/src/http/csrf\\.test\\.ts$',
  '/gateway/src/(coalesce|auth/key-cache|http/exact-json|http/validation|limits/client-ip-key|limits/decision|mapping/mapping)\\.test\\.ts$',
];

/** Suites that must not run at the same time as one another. */
const SERIAL = [
  // `npm start` stacks of real processes on fixed ports (18420-18434, 19100-19104, 19200-19217),
  // found by scanning /proc, SIGKILLed and restarted with timing bounds. The other fault suites
  // (postgres-outage, retention, backup-restore) run in process on ports of their own.
  '/test/faults/(stopping|auth-crash|exactly-once|rolling-restart)\\.test\\.ts$',
  // Fixed metrics ports 19300-19301 and a replica child process killed for real.
  '/services/accounts/src/trading/replica-handoff\\.test\\.ts$',
  // `npm start` stacks on fixed ports (19320-19330) exporting to a test OTLP receiver.
  '/test/observability/[^/]+\\.test\\.ts$',
];

/**
 * The projects whose suites need PostgreSQL and Redis check first that both answer, and stop the
 * run with one message naming what is missing (test/support/servers-ready.ts).
 */
const SERVERS = { globalSetup: '<rootDir>/test/support/servers-ready.ts' };

module.exports = {
  testTimeout: 60_000,
  // Besides the serial project's own worker: three suites at a time on two cores. They mostly wait
  // on I/O (PostgreSQL, Redis, child processes, timers), but each runs whole stacks (and Chromium
  // for the panel): with one more worker, a slower machine's runs missed deadlines, CLI timeouts
  // and restart bounds on contention alone.
  maxWorkers: 2,
  projects: [
    { ...common, displayName: 'unit', roots: SOURCES, testRegex: UNIT, testPathIgnorePatterns: IGNORED },
    { ...common, ...SERVERS, displayName: 'integration', roots: SOURCES, testRegex: ['/src/.+\\.test\\.ts$'], testPathIgnorePatterns: [...IGNORED, ...UNIT, ...SERIAL] },
    { ...common, ...SERVERS, displayName: 'e2e', roots: ['<rootDir>/test'], testRegex: ['\\.test\\.ts$'], testPathIgnorePatterns: [...IGNORED, ...SERIAL] },
    { ...common, ...SERVERS, displayName: 'serial', roots: [...SOURCES, '<rootDir>/test'], testRegex: SERIAL, testPathIgnorePatterns: IGNORED },
  ],
};
