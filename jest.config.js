/**
 * One jest run for the whole workspace. Tests import workspace packages from their sources
 * (moduleNameMapper), so a change to a package is seen without a rebuild; `pnpm test` type-checks
 * everything with `tsc -b` first (CONTRIBUTING.md convention 22), so ts-jest only transpiles.
 *
 * @type {import('jest').Config}
 */
const LINKEDOM_ESM = [
  'css-select',
  'css-what',
  'domhandler',
  'domutils',
  'domelementtype',
  'nth-check',
  'boolbase',
  'entities',
  'htmlparser2',
  'dom-serializer',
  'cssomnom',
];

const shared = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }],
    // jose (a dependency of @a2a-js/sdk) ships ESM only; jest's CommonJS runtime cannot load it
    // untransformed (plain Node 20.19+ can), so ts-jest turns it into CommonJS for the tests.
    '/jose/dist/.+\\.js$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }],
    // marked (the Markdown lexer the RAG agent parses with) is ESM-only too.
    '/marked/lib/.+\\.js$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }],
    // linkedom (the web agent's DOM for Readability) requires css-select 7 and its family, which
    // ship ESM only.
    [`/(${LINKEDOM_ESM.join('|')})/(dist|lib)/.+\\.js$`]: [
      'ts-jest',
      { tsconfig: '<rootDir>/tsconfig.jest.json' },
    ],
  },
  transformIgnorePatterns: [
    `/node_modules/(?!\\.pnpm/jose@|jose/|\\.pnpm/marked@|marked/|${LINKEDOM_ESM.map((name) => `\\.pnpm/${name}@|${name}/`).join('|')})`,
  ],
  moduleNameMapper: {
    // A service exposes only its config module, for the configuration docs (e2e/src/config-docs.ts).
    '^@fleet/(gateway|orchestrator|planner|[a-z]+-agent)/(config|in-process)$':
      '<rootDir>/services/$1/src/$2.ts',
    // The gateway console's Content-Security-Policy, for the e2e console stub.
    '^@fleet/gateway/console-csp$': '<rootDir>/services/gateway/src/console/console-csp.ts',
    // An agent's card builder (`./card`), for the planning evaluation's view of the real fleet.
    '^@fleet/(rag|web|mail|code|reasoning|tools)-agent/card$':
      '<rootDir>/services/$1-agent/src/agent/$1-card.ts',
    // The planner's planning entry (`./planning`), for the planning evaluation.
    '^@fleet/planner/planning$': '<rootDir>/services/planner/src/planning/index.ts',
    '^@fleet/([a-z0-9-]+)$': '<rootDir>/packages/$1/src/index.ts',
    '^@fleet/([a-z0-9-]+)/(.+)$': '<rootDir>/packages/$1/src/$2/index.ts',
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/packages/*/src/**/*.test.ts', '<rootDir>/services/*/src/**/*.test.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/src/**/*.test.ts'],
      slowTestThreshold: 30,
      // Hooks boot and stop real service processes: 60 s by default (a project entry cannot
      // set testTimeout; the setup file does).
      setupFilesAfterEnv: ['<rootDir>/e2e/jest/setup-timeout.js'],
    },
  ],
};
