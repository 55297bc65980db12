// Placements: for a namespace or a workload the recent decisions name, its
// bound Pods per zone and node, the policies that placed them and its
// decisions (webhook and placement controller, deferred and skipped marked);
// a decision chosen opens its record and the `topogate explain` text.

import { ask, byId, element, replace, table, why } from './dom.js';

const state = { chosen: undefined, options: '' };

export function renderPlacements(data) {
  const workloads = data.workloads;
  if (workloads.length === 0) return replace('placements', why(`No placements to show: ${data.empty.decisions}`));
  const namespaces = [...new Set(workloads.map((w) => w.namespace))].sort();
  if (state.chosen === undefined) state.chosen = workloads[0].workload;
  const options = JSON.stringify([namespaces, workloads.map((w) => w.workload)]);
  // The chooser is rebuilt only when its options change, so that it keeps focus and its open list.
  if (options !== state.options || !byId('chooser')) {
    state.options = options;
    const select = element('select', { id: 'chooser' }, [
      element(
        'optgroup',
        { label: 'namespaces' },
        namespaces.map((ns) => element('option', { value: ns, text: `namespace ${ns}` })),
      ),
      element(
        'optgroup',
        { label: 'workloads' },
        workloads.map((w) => element('option', { value: w.workload, text: w.workload })),
      ),
    ]);
    select.value = state.chosen;
    select.addEventListener('change', () => {
      state.chosen = select.value;
      show();
    });
    replace(
      'placements',
      element('p', {}, [element('label', { for: 'chooser', text: 'Pods of ' }), select]),
      element('div', { id: 'placement' }),
    );
  }
  show();
}

async function show() {
  const chosen = state.chosen;
  const found = await ask(`placements?of=${encodeURIComponent(chosen)}`);
  if (chosen !== state.chosen) return;
  if (found.why) return replace('placement', why(found.why));
  replace('placement', ...placementView(found));
}

function placementView(found) {
  const policies = found.policies.length
    ? `Placed by ${found.policies.join(', ')}.`
    : 'No policy changed these Pods in the recent decisions.';
  const most = Math.max(1, ...found.byZone.map((z) => z.pods));
  const bound =
    found.bound === 0
      ? why(
          'No Pod of it is bound to a node yet, or the model does not read Pods (the pods source): the decisions below are what is known.',
        )
      : element('div', { class: 'bars', role: 'list', 'aria-label': 'bound Pods per zone' }, [
          ...found.byZone.map((z) =>
            element('div', { class: 'bar-row', role: 'listitem' }, [
              element('span', { class: 'bar-label', text: z.zone }),
              element('span', { class: 'bar', style: { width: `${(z.pods / most) * 60}%` } }),
              element('span', { class: 'bar-value', text: `${z.pods} Pods` }),
            ]),
          ),
          element(
            'p',
            { class: 'per-node' },
            found.byNode
              .slice(0, 60)
              .map((n) =>
                element('button', { type: 'button', class: 'pill', 'data-node': n.node, text: `${n.node}: ${n.pods}` }),
              ),
          ),
        ]);
  return [
    element('p', { text: `${found.bound} bound Pods. ${policies}` }),
    bound,
    found.decisions.length
      ? element(
          'ul',
          { class: 'decision-list', 'aria-label': 'its recent decisions' },
          found.decisions.map(decisionItem),
        )
      : why('No recent decision for it: decided before the ring began, or by another replica.'),
  ];
}

function decisionItem(d) {
  const mark = d.outcome === 'deferred' || d.outcome === 'skipped' ? ` [${d.outcome}]` : ` — ${d.outcome}`;
  return element('li', {}, [
    element('button', {
      type: 'button',
      class: `decision ${d.outcome}`,
      'data-decision': d.id,
      text: `${d.at.slice(11, 19)} ${d.namespace}/${d.pod}${mark} by the ${d.by}${d.policies.length ? `: ${d.policies.join(', ')}` : ''}`,
    }),
  ]);
}

/** Opens a decision's record and its explain text. */
export async function showDecision(id) {
  const found = await ask(`explain?id=${encodeURIComponent(id)}`);
  const panel = byId('decision');
  if (found.why) return panel.replaceChildren(why(found.why));
  const d = found.decision;
  panel.replaceChildren(
    element('h3', { text: `Pod ${d.namespace}/${d.pod}` }),
    table(
      'Decision record',
      ['at', 'by', 'outcome', 'policies', 'workload', 'snapshot', 'ms', 'why'],
      [
        [
          d.at,
          d.by,
          d.outcome,
          d.policies.join(', ') || '—',
          d.workload,
          d.snapshot,
          Math.round(d.latencyMs * 100) / 100,
          d.reason,
        ],
      ],
    ),
    element('p', { class: 'note', text: 'topogate explain, on the model as it is now:' }),
    element('pre', { class: 'explain', text: found.explain }),
  );
  panel.focus();
}
