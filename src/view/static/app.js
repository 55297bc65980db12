// The topology view: follows /api/events (a snapshot on connect and on every
// change) and renders the map, the placements, the trends and the tables
// (the RTT heat map is a table whose cells say their value in text, so colour
// is never the only carrier). Each render replaces what it drew, and clicks
// are handled once on the document, so a page open for hours does not grow.

import { ask, byId, element, heat, replace, table, why } from './dom.js';
import { onPairChosen, renderMap, showNode } from './map.js';
import { renderPlacements, showDecision } from './placements.js';
import { choosePair, renderTrends } from './trends.js';

function zones(data) {
  replace(
    'zones',
    table(
      `${data.nodes.total} nodes in ${data.zones.length} zones`,
      ['zone', 'nodes', 'schedulable', 'cordoned', 'not ready', 'degraded'],
      data.zones.map((z) => [z.name, z.nodes, z.schedulable, z.cordoned, z.notReady, z.degraded]),
    ),
  );
}

const heatClass = (cell) => heat(cell.rttMs);

function rtt(data) {
  const network = data.network;
  if (!network) return replace('rtt', why(`Nothing is known of the distances between zones: ${data.empty.links}`));
  const age =
    network.ageSeconds === undefined
      ? 'declared links only (spec), no measurement'
      : `measured ${network.ageSeconds} s ago`;
  const head = element('tr', {}, [
    element('th', { scope: 'col', text: 'from \\ to' }),
    ...network.domains.map((d) => element('th', { scope: 'col', text: d })),
  ]);
  const rows = network.cells.map((row, i) =>
    element('tr', {}, [
      element('th', { scope: 'row', text: network.domains[i] }),
      ...row.map((cell, j) => {
        const value =
          cell.rttMs === undefined ? (cell.source === 'self' ? 'same zone' : 'unknown') : `${cell.rttMs} ms`;
        const label = `${network.domains[i]} to ${network.domains[j]}: ${value}, ${cell.source}${cell.bandwidthGbps ? `, ${cell.bandwidthGbps} Gbps` : ''}`;
        const classes = `${heatClass(cell)}${cell.source === 'measured' ? ' measured' : ''}`;
        return element('td', { class: classes, title: label, 'aria-label': label, text: value });
      }),
    ]),
  );
  replace(
    'rtt',
    element('table', { class: 'heat' }, [
      element('caption', { text: `RTT by ${network.domainLabel}; ● measured, else declared; ${age}` }),
      element('thead', {}, [head]),
      element('tbody', {}, rows),
    ]),
    element('p', { class: 'note', text: 'Green ≤ 1 ms, yellow ≤ 2 ms, red above; grey unknown.' }),
  );
}

function gpus(data) {
  if (data.gpus.length === 0) return replace('gpus', why(`No GPUs: ${data.empty.gpus}`));
  replace(
    'gpus',
    table(
      'GPU inventory by product',
      ['product', 'source', 'nodes', 'GPUs', 'memory MiB'],
      data.gpus.map((g) => [g.product, g.source, g.nodes, g.gpus, g.memoryMiB]),
    ),
  );
}

function numa(data) {
  if (data.numa.total === 0)
    return replace('numa', why(`No NUMA cells: ${data.empty.numa ?? 'no NodeResourceTopology object has a cell'}`));
  const shown =
    data.numa.listed.length < data.numa.total ? ` (first ${data.numa.listed.length} of ${data.numa.total})` : '';
  replace(
    'numa',
    table(
      `Available per NUMA cell${shown}`,
      ['node', 'NUMA cell', 'CPUs', 'memory GiB'],
      data.numa.listed.map((n) => [n.node, n.zone, n.cpu, n.memoryGiB]),
    ),
  );
}

function controlPlane(data) {
  const leader = data.etcd.leader
    ? `etcd leader: ${data.etcd.leader}`
    : `etcd leader: unknown — ${data.empty.etcdLeader}`;
  replace(
    'controlplane',
    element('p', { text: leader }),
    data.etcd.members.length === 0
      ? why('No etcd member is known: etcd is scraped with serve --topology kube (docs/controlplane.md).')
      : table(
          'etcd members',
          ['member', 'node', 'zone', 'leader', 'peer RTT ms'],
          data.etcd.members.map((m) => [
            m.name,
            m.node,
            m.zone,
            m.isLeader ? 'yes' : 'no',
            Object.entries(m.peerRttMs)
              .map(([peer, ms]) => `${peer}: ${ms}`)
              .join(', '),
          ]),
        ),
    data.controlPlane.length === 0
      ? why(`No control-plane Pod: ${data.empty.controlPlane ?? 'none is labelled tier: control-plane in kube-system'}`)
      : table(
          'Control-plane Pods',
          ['component', 'Pod', 'node', 'zone'],
          data.controlPlane.map((p) => [p.component, p.name, p.node, p.zone]),
        ),
    ...controlPlaneFigures(data.controlPlaneFigures),
  );
}

function controlPlaneFigures(measured) {
  if (!measured) return [why('No measured figures: the control plane is measured with serve --topology kube.')];
  const unanswered = measured.unanswered.map((u) => element('p', { class: 'bad', text: `${u.source}: ${u.error}` }));
  return [
    table(
      `Measured over ${measured.windowSeconds} s, ${measured.ageSeconds} s ago`,
      ['figure', 'ms'],
      measured.figures.map((f) => [f.figure, Math.round(f.valueMs * 100) / 100]),
    ),
    measured.figures.length === 0 ? why('No figure measured in the window yet.') : undefined,
    measured.leaders.length === 0
      ? why('No leader Lease read for the scheduler or the controller manager.')
      : table(
          'Leaders',
          ['component', 'holder', 'node', 'zone'],
          measured.leaders.map((l) => [l.component, l.holder, l.node, l.zone]),
        ),
    element(
      'ul',
      { 'aria-label': 'findings' },
      measured.findings.length === 0
        ? [element('li', { text: 'No finding.' })]
        : measured.findings.map((finding) => element('li', { class: 'bad', text: finding })),
    ),
    ...unanswered,
  ].filter(Boolean);
}

function policies(data) {
  const problem = data.policies.problem ? [element('p', { class: 'bad', text: data.policies.problem })] : [];
  replace(
    'policies',
    ...problem,
    data.policies.listed.length === 0
      ? why('No policy in force: no policy file and no SchedulingPolicy object, or none valid (see above).')
      : table(
          `${data.policies.listed.length} policies in force`,
          ['policy', 'from', 'priority', 'enforcement', 'rollout %', 'rules', 'when unsatisfiable'],
          data.policies.listed.map((p) => [
            p.name,
            p.source,
            p.priority,
            p.enforcement,
            p.rolloutPercent,
            p.rules.join(', '),
            p.onUnsatisfiable,
          ]),
        ),
  );
}

function decisions(data) {
  if (data.decisions.length === 0) return replace('decisions', why(`No decision yet: ${data.empty.decisions}`));
  replace(
    'decisions',
    table(
      'Newest first; choose a Pod for its record and explain',
      ['time', 'namespace', 'Pod', 'by', 'outcome', 'policies', 'ms'],
      data.decisions.map((d) => [
        d.at.slice(11, 19),
        d.namespace,
        element('td', {}, [element('button', { type: 'button', class: 'link', 'data-decision': d.id, text: d.pod })]),
        d.by,
        d.reason ? `${d.outcome}: ${d.reason}` : d.outcome,
        d.policies.join(', '),
        Math.round(d.latencyMs * 100) / 100,
      ]),
    ),
  );
}

function sources(data) {
  replace(
    'sources',
    table(
      'Topology sources',
      ['source', 'synced', 'objects', 'age s', 'note'],
      data.sources.map((s) => [s.name, s.synced ? 'yes' : 'no', s.objects, s.ageSeconds, s.disabled]),
    ),
  );
}

const sections = [
  renderMap,
  renderPlacements,
  renderTrends,
  rtt,
  zones,
  gpus,
  numa,
  controlPlane,
  policies,
  decisions,
  sources,
];

function render(data) {
  for (const section of sections) section(data);
  byId('status').textContent = `Snapshot ${data.snapshotVersion}, updated ${data.generatedAt.slice(11, 19)} UTC`;
}

onPairChosen(choosePair);
document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('[data-node], [data-decision]') : null;
  if (!target) return;
  if (target.dataset.node) showNode(target.dataset.node);
  else showDecision(target.dataset.decision);
});

let searching;
byId('search-form').addEventListener('submit', (event) => event.preventDefault());
byId('search').addEventListener('input', (event) => {
  clearTimeout(searching);
  const query = event.target.value;
  searching = setTimeout(async () => {
    if (query.trim() === '') return replace('search-results');
    const found = await ask(`search?q=${encodeURIComponent(query)}`);
    if (found.matches.length === 0) return replace('search-results', why(`No node name contains “${query}”.`));
    replace(
      'search-results',
      element(
        'ul',
        { class: 'matches' },
        found.matches.map((m) =>
          element('li', {}, [
            element('button', {
              type: 'button',
              class: 'pill',
              'data-node': m.name,
              text: `${m.name} (${m.zone ?? 'no zone'})`,
            }),
          ]),
        ),
      ),
      found.more ? element('p', { class: 'note', text: 'More match: type more of the name.' }) : undefined,
    );
  }, 200);
});

const events = new EventSource('/api/events');
events.addEventListener('snapshot', (event) => render(JSON.parse(event.data)));
events.addEventListener('error', () => {
  byId('status').textContent = 'Disconnected; reconnecting…';
});
