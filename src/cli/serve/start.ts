// Everything `serve` runs, in start-up order, without the signal handling:
// for tests and embedding. What fails to start stops what had started.

import type { PodDecider, PodDeferrer } from '../../admission/handler.ts';
import type { TopologyProvider } from '../../ports/topology.ts';
import { createPolicyStore } from '../../sources/policies/store.ts';
import { readClientCa } from '../../server/clientAuth.ts';
import { createDecider, type Decider } from '../../server/decider.ts';
import type { ReadinessChecks } from '../../server/readiness.ts';
import { startWebhookServer, type WebhookServerOptions } from '../../server/server.ts';
import { assumeAdmitted } from './assume.ts';
import { ensureCertificates } from './certificates.ts';
import type { ServeComponent, ServeContext, StartedComponent } from './component.ts';
import { components as defaultComponents } from './components.ts';
import type { ServeConfig } from './config.ts';
import { policiesInForce } from './policies.ts';
import type { Shell } from './shell.ts';
import { releaseStartUpGarbage, releaseWhenFirstReady, trimAfterListWorkers } from './startup-gc.ts';
import { createTopology } from './topology.ts';

export interface RunningTopogate {
  readonly url: string;
  /** Re-reads the policies (SIGHUP). */
  reload(): Promise<void>;
  /** Stops accepting, finishes in-flight requests, stops the components and the watches. */
  stop(): Promise<void>;
}

/**
 * The decider, telling each observing component of every decision once `serving()` holds (so not the warm-up's);
 * the decider itself when none observes.
 */
function observed(decide: PodDecider, started: readonly StartedComponent[], serving: () => boolean): PodDecider {
  const observers = started.flatMap((component) => (component.observe ? [component.observe] : []));
  if (observers.length === 0) return decide;
  return (request) => {
    const begun = performance.now();
    const decision = decide(request);
    const milliseconds = performance.now() - begun;
    if (serving()) for (const observe of observers) observe(request, decision, milliseconds);
    return decision;
  };
}

function deferrer(started: readonly StartedComponent[]): { defer?: PodDeferrer } {
  const defer = started.find((component) => component.defer !== undefined)?.defer;
  return defer === undefined ? {} : { defer };
}

/**
 * Starts the components in order, each told of those before it; each started one goes into `started` at once
 * (so that a later failure stops it) and its readiness into `checks`.
 */
async function startComponents(
  components: readonly ServeComponent[],
  context: Omit<ServeContext, 'started'>,
  started: { name: string; component: StartedComponent }[],
  checks: Record<string, ReadinessChecks[string]>,
): Promise<void> {
  const earlier: StartedComponent[] = [];
  const told: ServeContext = { ...context, started: earlier };
  for (const { name, start } of components) {
    const component = await start(told);
    if (component === undefined) continue;
    started.push({ name, component });
    earlier.push(component);
    if (component.readiness) checks[name] = () => component.readiness!();
  }
}

export async function startTopogate(
  config: ServeConfig,
  shell: Shell,
  components: readonly ServeComponent[] = defaultComponents,
): Promise<RunningTopogate> {
  const certDir = await ensureCertificates(config.certDir, shell.log, config.certFallbackDir);
  const clientCa = config.clientCa === undefined ? undefined : await readClientCa(config.clientCa);
  const store = await createPolicyStore({ dir: config.policies, ...shell });
  const topology = await createTopology(config, shell).catch(async (error: unknown) => {
    await store.stop();
    throw error;
  });
  const policies = await policiesInForce(store, config, shell);
  const decider = createDecider({ policies, topology, maxSourceAgeMs: config.maxSourceAgeMs, log: shell.log });
  // The decider has compiled the policies against the topology: what start-up allocates once is all done.
  releaseStartUpGarbage();
  releaseWhenFirstReady(topology);
  const stopTrimming = trimAfterListWorkers(shell.log);

  const started: { name: string; component: StartedComponent }[] = [];
  const stopBackground = async () => {
    for (const { component } of started.splice(0).reverse()) await component.stop();
    decider.stop();
    stopTrimming();
    await Promise.all([policies.stop(), topology.stop()]);
  };
  const checks: Record<string, ReadinessChecks[string]> = {
    policies: () => policies.readiness(),
    topology: () => topology.readiness(),
  };
  const failed = async (error: unknown): Promise<never> => {
    await stopBackground();
    throw error;
  };
  const context = { config, ...shell, policies, topology, decide: decider.decide, decider };
  await startComponents(components, context, started, checks).catch(failed);
  let serving = false;
  const server = await startWebhookServer(
    webhookOptions(
      config,
      shell,
      certDir,
      clientCa,
      decider,
      topology,
      started.map(({ component }) => component),
      checks,
      () => serving,
    ),
  ).catch(failed);
  serving = true;
  return {
    url: server.url,
    reload: () => store.reload(),
    async stop() {
      await server.close();
      await stopBackground();
    },
  };
}

/** The webhook's options: the decider (observed by the components that observe), deferred if one defers. */
function webhookOptions(
  config: ServeConfig,
  shell: Shell,
  certDir: string,
  clientCa: string | undefined,
  decider: Decider,
  topology: TopologyProvider,
  started: readonly StartedComponent[],
  checks: ReadinessChecks,
  serving: () => boolean,
): WebhookServerOptions {
  return {
    host: config.host,
    port: config.port,
    certDir,
    ...(clientCa !== undefined && { clientCa }),
    budgetMs: config.budgetMs,
    limits: { maxConnections: config.maxConnections, shutdownGraceMs: config.shutdownGraceMs },
    decide: observed(decider.decide, started, serving),
    decideClaim: decider.decideClaim,
    ...assumeAdmitted(topology),
    ...deferrer(started),
    // Only --defer never admits a late Pod unchanged: otherwise one that cannot be deferred (no controller to
    // release it: --topology files, or no right to patch Pods) is decided late rather than left unplaced.
    whenLate: config.defer === 'never' ? 'skip' : 'decide',
    checks,
    ...shell,
  };
}
