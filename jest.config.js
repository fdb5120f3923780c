/** @type {import('jest').Config} */
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: { isolatedModules: true } }]
  },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts', '<rootDir>/bench/**/*.test.ts'],
  testTimeout: 60000,
  // Most suites wait on child processes, servers and timers, not on the CPU: on a 2-core machine,
  // six workers took npm test from 64 s (three) to 38 s.
  maxWorkers: 6
};
