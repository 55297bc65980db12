// Everything `serve` runs, in start-up order, without the signal handling:
// for tests and embedding. What fails to start stops what had started.

import type { PodDecider, PodDeferrer } from '../../admission/handler.ts';
import { createPolicyStore } from '../../sources/policies/store.ts';
import { readClientCa } from '../../server/clientAuth.ts';
import { createDecider } from '../../server/decider.ts';
import type { ReadinessChecks } from '../../server/readiness.ts';
import { startWebhookServer } from '../../server/server.ts';
import { assumeAdmitted } from './assume.ts';
import { ensureCertificates } from './certificates.ts';
import type { ServeComponent, StartedComponent } from './component.ts';
import { components as defaultComponents } from './components.ts';
import type { ServeConfig } from './config.ts';
import { policiesInForce } from './policies.ts';
import type { Shell } from './shell.ts';
import { releaseStartUpGarbage, releaseWhenFirstReady } from './startup-gc.ts';
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

  const started: { name: string; component: StartedComponent }[] = [];
  const stopBackground = async () => {
    for (const { component } of started.splice(0).reverse()) await component.stop();
    decider.stop();
    await Promise.all([policies.stop(), topology.stop()]);
  };
  const checks: Record<string, ReadinessChecks[string]> = {
    policies: () => policies.readiness(),
    topology: () => topology.readiness(),
  };
  try {
    const earlier: StartedComponent[] = [];
    const context = { config, ...shell, policies, topology, decide: decider.decide, decider, started: earlier };
    for (const { name, start } of components) {
      const component = await start(context);
      if (component === undefined) continue;
      started.push({ name, component });
      earlier.push(component);
      if (component.readiness) checks[name] = () => component.readiness!();
    }
  } catch (error) {
    await stopBackground();
    throw error;
  }
  let serving = false;
  const server = await startWebhookServer({
    host: config.host,
    port: config.port,
    certDir,
    ...(clientCa !== undefined && { clientCa }),
    budgetMs: config.budgetMs,
    limits: { maxConnections: config.maxConnections, shutdownGraceMs: config.shutdownGraceMs },
    decide: observed(
      decider.decide,
      started.map(({ component }) => component),
      () => serving,
    ),
    decideClaim: decider.decideClaim,
    ...assumeAdmitted(topology),
    ...deferrer(started.map(({ component }) => component)),
    // Only --defer never admits a late Pod unchanged: otherwise one that cannot be deferred (no controller to
    // release it: --topology files, or no right to patch Pods) is decided late rather than left unplaced.
    whenLate: config.defer === 'never' ? 'skip' : 'decide',
    checks,
    ...shell,
  }).catch(async (error: unknown) => {
    await stopBackground();
    throw error;
  });
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
