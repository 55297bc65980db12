// The placement controller as a part of serve, with --topology kube only: it
// is what releases a Pod the webhook deferred, so the webhook defers only
// while it runs (src/gates/start.ts says when it can).

import type { DecisionObserver, ServeComponent, StartedComponent } from './component.ts';

export const placement: ServeComponent = {
  name: 'placement',
  async start({ config, log, registry, decider, topology, policies }) {
    if (config.topology !== 'kube') {
      if (config.defer !== 'never')
        log.info(
          '--defer needs --topology kube (a controller to release Pods): deferring nothing, late Pods are decided late',
        );
      return undefined;
    }
    // Loaded only here, as the live topology is: @kubernetes/client-node is large.
    const { startPlacement } = await import('../../gates/start.ts');
    const observers = new Set<DecisionObserver>();
    const started = await startPlacement(config.kubeconfig, {
      place(request, created) {
        const began = performance.now();
        const placed = decider.place(request, created);
        if (!('wait' in placed)) for (const observe of observers) observe(request, placed, performance.now() - began);
        return placed;
      },
      ...(topology.expect && { expect: (pod) => topology.expect!('pods', pod) }),
      subscribe: (listener) => {
        const stops = [topology.subscribe(listener), policies.onChange(listener)];
        return () => stops.forEach((stop) => stop());
      },
      deferMaxMs: config.deferMaxMs,
      leaseNamespace: config.leaseNamespace,
      log,
      registry,
    });
    if ('problem' in started) {
      log.warn(
        `the placement controller cannot run (${started.problem}): deferring nothing, late Pods are decided late`,
      );
      return undefined;
    }
    const component: StartedComponent = {
      stop: () => started.controller.stop(),
      onPlaced(observer) {
        observers.add(observer);
        return () => observers.delete(observer);
      },
    };
    if (config.defer === 'never') return component;
    const always = config.defer === 'always';
    return { ...component, defer: (request, overrun) => decider.defer(request, overrun, always) };
  },
};
