// typescript-eslint's strict rules over the whole repository, without type information (tsc checks types;
// `npm run typecheck`). Non-null assertions stay allowed: with noUncheckedIndexedAccess they are how the code
// says "this index exists" after checking it.

import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** YAML is read and written as kubectl reads it, in one place (docs/architecture.md, Conventions). */
const yamlThroughKube = {
  name: 'yaml',
  allowTypeImports: true,
  message: 'read and write YAML through src/kube/yaml.ts, which quotes and reads scalars as kubectl does',
};
const noClock = 'the core and pure parts take the time as an argument (options.now); the shell reads the clock';
/** The core and the pure parts of probe/, controlplane/ and view/: no clock, no timers. */
const clockFree = [
  'src/{kube,api,memo,topology,policy,admission,discover}/**/*.ts',
  'src/{probe,controlplane,view}/*.ts',
  'src/probe/adapters/**/*.ts',
];

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
  {
    files: ['src/**/*.ts'],
    ignores: ['src/kube/yaml.ts', 'src/kube/goYamlScalars.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [yamlThroughKube] }] },
  },
  // test/unit/architecture/conventions.test.ts shows each of these failing on a planted line.
  {
    files: clockFree,
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: noClock },
        { object: 'performance', property: 'now', message: noClock },
        { object: 'process', property: 'hrtime', message: noClock },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: `new Date(): ${noClock}` },
        { selector: "CallExpression[callee.name='Date']", message: `Date(): ${noClock}` },
      ],
      'no-restricted-globals': [
        'error',
        ...['setTimeout', 'setInterval', 'setImmediate'].map((name) => ({ name, message: noClock })),
      ],
    },
  },
  // The decision core reads a Pod only as PodFacts (src/kube/podFacts.ts), which is the decision memo's key:
  // a rule that imported the raw Pod could read a field the key leaves out (test/unit/architecture/pod-facts.test.ts).
  {
    files: [
      'src/policy/rules/**',
      'src/policy/{engine,context,compiler,match,merge,memo,deferral,explain,rollout,satisfiability}.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [yamlThroughKube],
          patterns: [
            {
              group: ['**/kube/types.ts'],
              importNames: ['Pod', 'PodSpec', 'Container', 'KubeObject'],
              message: 'decisions read PodFacts (kube/podFacts.ts), the memo key; add the field there',
            },
            {
              group: ['**/kube/podFacts.ts'],
              importNames: ['podFacts', 'podRequest'],
              message: 'the Pod is parsed at the boundary (admission, CLI), not in the decision core',
            },
          ],
        },
      ],
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
    languageOptions: {
      globals: Object.fromEntries(
        ['document', 'Node', 'Element', 'EventSource', 'fetch', 'CSS', 'setTimeout', 'clearTimeout'].map((name) => [
          name,
          'readonly',
        ]),
      ),
    },
  },
  // Narrowing untrusted JSON: a record whose fields are each checked where they are read.
  {
    files: ['src/kube/workloads.ts', 'src/policy/merge.ts', 'src/policy/status.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // Tests and benchmarks read untyped JSON answers and report to the console.
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-console': 'off' },
  },
);
