// typescript-eslint's strict rules over the whole repository, without type information (tsc checks types;
// `npm run typecheck`). Non-null assertions stay allowed: with noUncheckedIndexedAccess they are how the code
// says "this index exists" after checking it.

import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeCommonJs = { module: 'writable', require: 'readonly', __dirname: 'readonly', process: 'readonly' };

export default tseslint.config(
  { ignores: ['node_modules/', 'test/e2e/k8s/', 'test/e2e/etcd/', 'certs/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { disallowTypeAnnotations: false }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Removing keys from plain JSON maps (slimming objects, taking patches back) is the job there.
      '@typescript-eslint/no-dynamic-delete': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'error',
    },
  },
  // TypeScript knows the globals; no-undef would only repeat it, wrongly for types.
  { files: ['**/*.ts'], rules: { 'no-undef': 'off' } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: nodeCommonJs } },
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  { files: ['**/*.mjs'], languageOptions: { globals: { process: 'readonly', URL: 'readonly' } } },
  // The topology view's page script runs in the browser.
  {
    files: ['src/view/static/*.js'],
    languageOptions: { globals: { document: 'readonly', Node: 'readonly', EventSource: 'readonly' } },
  },
  // Narrowing untrusted JSON: a record whose fields are each checked where they are read.
  {
    files: [
      'src/kube/json.ts',
      'src/kube/workloads.ts',
      'src/policy/merge.ts',
      'src/policy/status.ts',
      'src/policy/claims.ts',
    ],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // Tests and benchmarks read untyped JSON answers and report to the console.
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-console': 'off' },
  },
);
