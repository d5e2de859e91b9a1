// ESLint flat config: typescript-eslint's type-checked rules plus the house rules (CONTRIBUTING.md convention 24).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/bundle/**',
      '**/node_modules/**',
      '**/coverage/**',
      '.fleet/**',
      'e2e/output/**',
      '**/*.d.ts',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: globals.node,
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      'max-params': ['error', 3],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@fleet/*/src', '@fleet/*/src/*', '@fleet/*/dist', '@fleet/*/dist/*'],
              message:
                "Import a package's public entry points, not its files (CONTRIBUTING.md convention 2).",
            },
            {
              group: ['@fleet/*/internal', '@fleet/*/internal/*'],
              message: 'internal/ is private to its package (CONTRIBUTING.md convention 2).',
            },
          ],
        },
      ],
    },
  },
  {
    // The web console runs in the browser (packages/console/app, built by vite).
    files: ['packages/console/app/**/*.ts', 'packages/console/app/**/*.tsx'],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['**/*.test.ts', 'e2e/**/*.ts', 'packages/testing/**/*.ts', 'packages/bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // supertest types response bodies as `any`: tests read untyped wire bodies on purpose.
    files: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: globals.node, sourceType: 'commonjs' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module' },
  },
);
