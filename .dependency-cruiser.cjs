// The layering of docs/architecture.md as rules: `npm run deps` fails on an arrow that points back.
// Core (pure): kube <- api, memo <- topology <- policy <- admission; kube, stats <- discover; stats imports nothing. Ports: provider interfaces
// over core types. Shell: everything else under src/: kube-client (the Kubernetes client plumbing), the feature
// folders (server, sources, certs, probe, controlplane, gates, view), and cli, which wires them together.

const core = '^src/(kube|stats|api|memo|topology|policy|admission|discover)/';
/** What every feature folder may import besides itself. */
const shared = [core, '^src/(ports|kube-client)/'];
const ioModules =
  '^(node:)?(fs|fs/promises|net|http|http2|https|tls|dgram|dns|child_process|cluster|worker_threads|readline)$';
/** Modules that read the clock or schedule work: the core takes its time as an argument. */
const clockModules = '^(node:)?(timers|timers/promises|perf_hooks)$';
/** The pure parts of the feature folders that have a shell/ beside them. */
const purePart = { path: '^src/(probe|controlplane|view)/', pathNot: '^src/(probe|controlplane|view)/shell/' };
const shellPackages = '^node_modules/(pino|prom-client|@kubernetes/client-node|hono|@hono/node-server|node-forge)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-shell',
      comment:
        'The core (kube, stats, api, memo, topology, policy, admission, discover) imports only the core: no ports, sources, ' +
        'server, cli.',
      severity: 'error',
      from: { path: core },
      to: { path: '^src/', pathNot: core },
    },
    {
      name: 'core-does-io',
      comment: 'The core is pure: no file system, network or processes (those belong to the shell).',
      severity: 'error',
      from: { path: core },
      to: { dependencyTypes: ['core'], path: ioModules },
    },
    {
      name: 'core-reads-clock',
      comment: 'The core reads no clock and schedules nothing: time comes in as an argument (options.now).',
      severity: 'error',
      from: { path: core },
      to: { dependencyTypes: ['core'], path: clockModules },
    },
    {
      name: 'pure-part-does-io',
      comment:
        'Outside their shell/, probe/, controlplane/ and view/ are pure functions: no I/O, no clock, no shell ' +
        'package, no kube-client/, nothing of a shell/.',
      severity: 'error',
      from: purePart,
      to: { path: [ioModules, clockModules, shellPackages, '^src/kube-client/', '^src/[^/]+/shell/'] },
    },
    {
      name: 'core-uses-shell-packages',
      comment: "Logging, metrics, the Kubernetes client, HTTP and certificates are the shell's.",
      severity: 'error',
      from: { path: core },
      to: { path: shellPackages },
    },
    {
      name: 'kube-is-the-innermost',
      comment: 'kube/ is Kubernetes semantics on plain JSON and imports nothing else of topogate.',
      severity: 'error',
      from: { path: '^src/kube/' },
      to: { path: '^src/', pathNot: '^src/kube/' },
    },
    {
      name: 'stats-imports-nothing',
      comment: 'stats/ is order statistics over plain numbers, shared by the core and the shell: it imports nothing.',
      severity: 'error',
      from: { path: '^src/stats/' },
      to: { path: '^src/', pathNot: '^src/stats/' },
    },
    {
      name: 'api-over-kube-only',
      comment: 'api/ is the topogate.dev kinds as schemas and types: pure, over kube/ alone.',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: '^src/(kube|api)/' },
    },
    {
      name: 'memo-over-kube-only',
      comment: 'memo/ holds the generic memo tools policy/ and admission/ share: it knows no decision or review.',
      severity: 'error',
      from: { path: '^src/memo/' },
      to: { path: '^src/', pathNot: '^src/(kube|memo)/' },
    },
    {
      name: 'discover-over-kube-only',
      comment: 'discover/ derives topology from measurement: pure, over kube/ and stats/ alone.',
      severity: 'error',
      from: { path: '^src/discover/' },
      to: { path: '^src/', pathNot: '^src/(kube|stats|discover)/' },
    },
    {
      name: 'topology-below-policy',
      severity: 'error',
      from: { path: '^src/topology/' },
      to: { path: '^src/(policy|admission)/' },
    },
    {
      name: 'policy-below-admission',
      severity: 'error',
      from: { path: '^src/policy/' },
      to: { path: '^src/admission/' },
    },
    {
      name: 'ports-over-core-types',
      comment: 'Ports are interfaces over core types; they implement nothing.',
      severity: 'error',
      from: { path: '^src/ports/' },
      to: { path: '^src/', pathNot: ['^src/ports/', core] },
    },
    {
      name: 'feature-imports-feature',
      comment:
        'A feature folder (probe, controlplane, gates, view, sources, server, certs) imports only itself, the core, ' +
        'the ports and kube-client/: a piece two features share belongs in one of those. cli/ wires features together.',
      severity: 'error',
      from: { path: '^src/([^/]+)/', pathNot: [...shared, '^src/cli/'] },
      // A feature importing cli/ is nothing-imports-cli's to say.
      to: { path: '^src/', pathNot: [...shared, '^src/$1/', '^src/cli/'] },
    },
    {
      name: 'kube-client-over-core',
      comment: 'kube-client/ is the plumbing every shell part talks to the API server with: it knows no feature.',
      severity: 'error',
      from: { path: '^src/kube-client/' },
      to: { path: '^src/', pathNot: [core, '^src/kube-client/'] },
    },
    {
      name: 'nothing-imports-cli',
      comment: 'cli/ is the outermost shell: commands wire the rest together.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'src-uses-dev-dependencies',
      comment: 'What topogate runs must be in dependencies, not devDependencies.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
