// The topology view: fetches /api/snapshot, then follows /api/events, and
// renders each section as tables (the RTT heat map is a table whose cells
// say their value in text, so colour is never the only carrier).

const byId = (id) => document.getElementById(id);

function element(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function table(caption, headers, rows) {
  const head = element(
    'tr',
    {},
    headers.map((text) => element('th', { scope: 'col', text })),
  );
  const body = rows.map((cells) =>
    element(
      'tr',
      {},
      cells.map((cell) =>
        cell instanceof Node
          ? cell
          : element('td', typeof cell === 'number' ? { class: 'num', text: String(cell) } : { text: cell ?? '—' }),
      ),
    ),
  );
  return element('table', {}, [
    element('caption', { text: caption }),
    element('thead', {}, [head]),
    element('tbody', {}, body),
  ]);
}

function replace(id, ...children) {
  byId(id).replaceChildren(...children);
}

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

function heatClass(cell) {
  if (cell.rttMs === undefined) return 'unknown';
  return cell.rttMs <= 1 ? 'near' : cell.rttMs <= 2 ? 'mid' : 'far';
}

function rtt(data) {
  const network = data.network;
  if (!network)
    return replace(
      'rtt',
      element('p', { text: 'No NetworkTopology: nothing is known of the distances between zones.' }),
    );
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
  if (data.gpus.length === 0) return replace('gpus', element('p', { text: 'No GPUs in the model.' }));
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
  if (data.numa.total === 0) return replace('numa', element('p', { text: 'No NodeResourceTopology objects.' }));
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
  const leader = data.etcd.leader ? `etcd leader: ${data.etcd.leader}` : 'etcd leader: unknown';
  replace(
    'controlplane',
    element('p', { text: leader }),
    table(
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
    table(
      'Control-plane Pods',
      ['component', 'Pod', 'node', 'zone'],
      data.controlPlane.map((p) => [p.component, p.name, p.node, p.zone]),
    ),
    ...controlPlaneFigures(data.controlPlaneFigures),
  );
}

function controlPlaneFigures(measured) {
  if (!measured) return [element('p', { text: 'The control plane is measured with serve --topology kube.' })];
  const unanswered = measured.unanswered.map((u) => element('p', { class: 'bad', text: `${u.source}: ${u.error}` }));
  return [
    table(
      `Measured over ${measured.windowSeconds} s, ${measured.ageSeconds} s ago`,
      ['figure', 'ms'],
      measured.figures.map((f) => [f.figure, Math.round(f.valueMs * 100) / 100]),
    ),
    table(
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
  ];
}

function policies(data) {
  const problem = data.policies.problem ? [element('p', { class: 'bad', text: data.policies.problem })] : [];
  replace(
    'policies',
    ...problem,
    table(
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
  if (data.decisions.length === 0) return replace('decisions', element('p', { text: 'No decision yet.' }));
  replace(
    'decisions',
    table(
      'Newest first',
      ['time', 'namespace', 'Pod', 'outcome', 'policies', 'ms'],
      data.decisions.map((d) => [
        d.at.slice(11, 19),
        d.namespace,
        d.pod,
        d.outcome,
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

function render(data) {
  for (const section of [zones, rtt, gpus, numa, controlPlane, policies, decisions, sources]) section(data);
  byId('status').textContent = `Snapshot ${data.snapshotVersion}, updated ${data.generatedAt.slice(11, 19)} UTC`;
}

const events = new EventSource('/api/events');
events.addEventListener('snapshot', (event) => render(JSON.parse(event.data)));
events.addEventListener('error', () => {
  byId('status').textContent = 'Disconnected; reconnecting…';
});
