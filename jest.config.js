/** Jest in ESM mode (NestJS 12 is ESM-only): see DESIGN.md, "Toolchain facts". */
export default {
  testEnvironment: 'node',
  rootDir: '.',
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  moduleNameMapper: {
    '^nestjs-a2a$': '<rootDir>/libs/a2a/src/index.ts',
    '^nestjs-a2a/client$': '<rootDir>/libs/a2a/src/client.ts',
    '^nestjs-a2a/testing$': '<rootDir>/libs/a2a/src/testing.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }],
  },
  testTimeout: 30000,
};
