// @ts-check
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/** Module boundaries: services (and the console) never import each other, libraries never import apps. */
const serviceScopes = ['order', 'payment', 'inventory', 'email', 'analytics', 'console'];
const depConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  // contracts, observability and database sit at the bottom: they import no project above them.
  { sourceTag: 'layer:foundation', onlyDependOnLibsWithTags: ['layer:foundation'] },
  ...serviceScopes.map((scope) => ({
    sourceTag: `scope:${scope}`,
    onlyDependOnLibsWithTags: [`scope:${scope}`, 'scope:shared'],
  })),
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/generated/**',
      '.run/**',
      '.cache/**',
      '.nx/**',
      'reports/**',
      'coverage/**',
    ],
  },
  { plugins: { '@nx': nx } },
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts', '**/*.mts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          banTransitiveDependencies: false,
          depConstraints,
        },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='only'][callee.object.name=/^(describe|it|test)$/]",
          message: 'Committed .only skips the rest of the suite.',
        },
        {
          selector: "CallExpression[callee.property.name='skip'][callee.object.name=/^(describe|it|test)$/]",
          message: 'No skipped tests: fix or delete.',
        },
      ],
    },
  },
  {
    // Tests drive the workspace's own database tooling (scripts/db, plain Node ESM) directly: the
    // suites under tests/, and a service's spec of its own SQL against a throwaway database.
    files: ['tests/**/*.ts', 'apps/*/src/**/*.spec.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: ['^(\\.\\./)+scripts/db/[a-z-]+\\.mjs$'],
          banTransitiveDependencies: false,
          depConstraints,
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs', '**/*.d.mts', 'vitest.config.mts'],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
