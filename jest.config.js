/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // SWC only strips the types (`tsc --noEmit` checks them, in CI and before each commit): the whole
  // suite took 10 % less CPU than with ts-jest, each file's transform being the part that shrank.
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }
    ]
  },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts', '<rootDir>/bench/**/*.test.ts'],
  testTimeout: 60000,
  testSequencer: '<rootDir>/jest.sequencer.js',
  // Many suites wait on child processes, servers and timers, not on the CPU: on a 2-core machine,
  // six workers took npm test from 64 s (three) to 38 s, and eight from 46-49 s (six) to 42-43 s
  // in round 9 (two runs each, side by side), for about a tenth more CPU.
  maxWorkers: 8
};
