/** One worker: the integration suites start real servers against one PostgreSQL and Redis. */
module.exports = {
  testEnvironment: 'node',
  maxWorkers: 1,
  testTimeout: 60_000,
  roots: ['<rootDir>/services', '<rootDir>/gateway', '<rootDir>/test'],
  testMatch: ['**/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: '<rootDir>/tsconfig.jest.json' }],
  },
  moduleNameMapper: {
    '^@propdesk/kit$': '<rootDir>/services/kit/src/index.ts',
    '^@propdesk/kit/testing$': '<rootDir>/services/kit/src/testing/index.ts',
    '^@propdesk/proto$': '<rootDir>/proto/index.ts',
  },
};
