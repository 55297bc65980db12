// The map: the etcd leader line, the zones and the links between them (SVG,
// measured solid, declared dashed, each labelled with p50/p99 and bandwidth),
// then zones → tiers → nodes as nested regions sized by node count, and the
// record of the node chosen. Every mark is a button or has a text label.

import { ask, byId, element, heat, ms, replace, svg, table, why } from './dom.js';

const state = { node: undefined, onPair: () => {} };

export function onPairChosen(listener) {
  state.onPair = listener;
}

export function renderMap(data) {
  leader(data);
  links(data);
  regions(data);
  if (state.node) showNode(state.node, false);
}

function leader(data) {
  const etcd = data.etcd;
  if (!etcd.leader) return replace('leader', element('p', { text: `etcd leader: unknown — ${data.empty.etcdLeader}` }));
  const member = etcd.members.find((m) => m.isLeader);
  const where = member?.node ? ` on node ${member.node}${member.zone ? ` in ${member.zone}` : ''}` : '';
  replace(
    'leader',
    element('p', {}, [
      element('strong', { text: `etcd leader: ${etcd.leader}` }),
      `${where}. `,
      member?.node ? nodeButton(member.node, 'show its node', 'link') : undefined,
    ]),
  );
}

const graph = { width: 640, height: 300, box: { w: 150, h: 46 } };
const maxGraphDomains = 24;

function links(data) {
  const network = data.map.network;
  if (!network) return replace('links', why(`No links between zones: ${data.empty.links}`));
  const domains = network.domains.slice(0, maxGraphDomains);
  const zoneRegion = new Map(data.map.zones.map((z) => [z.name, z]));
  const at = position(domains.length);
  const place = new Map(domains.map((d, i) => [d, at(i)]));
  const lines = network.links
    .filter((l) => place.has(l.from) && place.has(l.to))
    .map((link) => linkMark(link, place.get(link.from), place.get(link.to)));
  const boxes = domains.map((domain) => zoneMark(domain, place.get(domain), zoneRegion.get(domain)));
  const measured = network.links.some((link) => link.source === 'measured');
  const age = !measured
    ? 'declared only, nothing measured'
    : network.ageSeconds === undefined
      ? 'measured (the status has no observedAt)'
      : `measured ${network.ageSeconds} s ago`;
  const more = network.domains.length > domains.length ? `; ${network.domains.length - domains.length} more below` : '';
  replace(
    'links',
    svg(
      'svg',
      {
        viewBox: `0 0 ${graph.width} ${graph.height}`,
        role: 'group',
        'aria-label': `Links between ${network.domainLabel} values: ${age}${more}`,
        class: 'graph',
      },
      [...lines, ...boxes],
    ),
    element('p', { class: 'note', text: `By ${network.domainLabel}: ${age}${more}. Choose a link for its last hour.` }),
  );
}

function position(count) {
  const { width, height, box } = graph;
  if (count === 1) return () => ({ x: width / 2, y: height / 2 });
  if (count === 2) return (i) => ({ x: i === 0 ? box.w : width - box.w, y: height / 2 });
  const rx = width / 2 - box.w / 2 - 8;
  const ry = height / 2 - box.h / 2 - 8;
  return (i) => {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / count;
    return { x: width / 2 + rx * Math.cos(angle), y: height / 2 + ry * Math.sin(angle) };
  };
}

function linkText(link) {
  const p99 = link.p99Ms === undefined ? '' : ` / p99 ${ms(link.p99Ms)}`;
  const bandwidth = link.bandwidthGbps === undefined ? '' : `, ${link.bandwidthGbps} Gbps`;
  return `p50 ${ms(link.p50Ms)}${p99}${bandwidth}`;
}

function linkMark(link, a, b) {
  const label = `${link.from} ↔ ${link.to}: ${link.source}, ${linkText(link)}`;
  const midX = (a.x + b.x) / 2;
  const midY = (a.y + b.y) / 2;
  const text = `${link.source === 'measured' ? '●' : '○'} ${linkText(link)}`;
  const width = text.length * 6.2 + 10;
  const mark = svg(
    'g',
    {
      class: `link ${link.source} ${heat(link.p50Ms)}`,
      tabindex: 0,
      role: 'button',
      'aria-label': label,
      'data-from': link.from,
      'data-to': link.to,
    },
    [
      svg('title', { text: label }),
      svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y }),
      svg('rect', { x: midX - width / 2, y: midY - 10, width, height: 20, rx: 4 }),
      svg('text', { x: midX, y: midY + 4, 'text-anchor': 'middle', text }),
    ],
  );
  const choose = () => state.onPair(link.from, link.to);
  mark.addEventListener('click', choose);
  mark.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      choose();
    }
  });
  return mark;
}

function zoneMark(domain, at, region) {
  const { w, h } = graph.box;
  const counts = region?.counts;
  const detail = counts
    ? `${counts.nodes} nodes${counts.degraded ? `, ${counts.degraded} degraded` : ''}${counts.nodes - counts.schedulable ? `, ${counts.nodes - counts.schedulable} unschedulable` : ''}`
    : 'no nodes';
  return svg('g', { class: `zone${counts?.degraded ? ' has-degraded' : ''}`, 'aria-label': `${domain}: ${detail}` }, [
    svg('rect', { x: at.x - w / 2, y: at.y - h / 2, width: w, height: h, rx: 8 }),
    svg('text', { x: at.x, y: at.y - 4, 'text-anchor': 'middle', class: 'zone-name', text: domain }),
    svg('text', { x: at.x, y: at.y + 13, 'text-anchor': 'middle', class: 'zone-detail', text: detail }),
  ]);
}

function legend() {
  const item = (cls, text) =>
    element('li', {}, [element('span', { class: `swatch ${cls}`, 'aria-hidden': 'true' }), text]);
  return element('ul', { 'aria-label': 'legend' }, [
    item('near', 'p50 ≤ 1 ms'),
    item('mid', 'p50 ≤ 2 ms'),
    item('far', 'p50 above 2 ms'),
    item('measured-line', '● measured (status)'),
    item('declared-line', '○ declared (spec)'),
    item('node schedulable', 'schedulable node'),
    item('node cordoned', 'cordoned'),
    item('node not-ready', 'not Ready'),
    item('node degraded', 'degraded (RTT far above its zone)'),
    item('node mislabeled', 'zone label disagrees with measurement'),
  ]);
}

function regions(data) {
  const map = data.map;
  replace('legend', legend());
  const tiers =
    map.tierSource === 'derived'
      ? `tiers derived by topogate discover (${map.tiers.join(', ')})`
      : map.tierSource === 'labels'
        ? `tiers from labels (${map.tiers.join(', ')})`
        : 'no tier labels (topogate.dev/block, topogate.dev/rack) and no derived tiers: zones hold nodes directly';
  const aggregated = map.aggregated
    ? `; ${data.nodes.total} nodes: aggregated, only degraded, mislabeled, unschedulable and control-plane nodes are drawn (search finds any)`
    : '';
  replace(
    'regions',
    element('p', { class: 'note', text: `Regions sized by node count; ${tiers}${aggregated}.` }),
    element(
      'div',
      { class: 'zones' },
      map.zones.map((zone) => regionBox(zone, 'zone')),
    ),
  );
}

function countsText(counts) {
  const parts = [`${counts.nodes} nodes`];
  if (counts.nodes !== counts.schedulable) parts.push(`${counts.nodes - counts.schedulable} unschedulable`);
  if (counts.degraded) parts.push(`${counts.degraded} degraded`);
  if (counts.gpus) parts.push(`GPUs ${counts.gpusFree}/${counts.gpus} free`);
  return parts.join(' · ');
}

function regionBox(region, level) {
  const inner = region.regions
    ? region.regions.map((child) => regionBox(child, 'tier'))
    : region.nodes.map((node) => nodeChip(node));
  const hidden = region.nodes ? region.counts.nodes - region.nodes.length : 0;
  if (hidden > 0) inner.push(element('span', { class: 'hidden-nodes', text: `+${hidden} healthy` }));
  return element(
    'div',
    {
      class: `region ${level}${region.counts.degraded ? ' has-degraded' : ''}`,
      style: { flexGrow: String(region.counts.nodes) },
      role: 'group',
      'aria-label': `${region.name}: ${countsText(region.counts)}`,
      'data-region': region.name,
    },
    [
      element('div', { class: 'region-head' }, [
        element('span', { class: 'region-name', text: region.name }),
        element('span', { class: 'region-counts', text: countsText(region.counts) }),
      ]),
      element('div', { class: region.regions ? 'region-body' : 'region-nodes' }, inner),
    ],
  );
}

function nodeFacts(node) {
  const facts = [];
  if (node.gpus)
    facts.push(
      `${node.gpus.product ?? 'GPU'} ×${node.gpus.count}${node.gpus.free === undefined ? '' : `, ${node.gpus.free} free`}`,
    );
  if (node.numaCells) facts.push(`${node.numaCells} NUMA`);
  if (node.degradedRttMs !== undefined) facts.push(`degraded ${ms(node.degradedRttMs)}`);
  if (node.mislabeled) facts.push(`labelled ${node.mislabeled.value}, measures as ${node.mislabeled.measured}`);
  return facts;
}

function nodeChip(node) {
  const cp = node.controlPlane ?? [];
  const label = [node.name, node.state, ...nodeFacts(node), ...cp, node.etcdLeader ? 'etcd leader' : undefined]
    .filter(Boolean)
    .join(', ');
  const classes = ['node', node.state.replace(' ', '-')];
  if (node.degradedRttMs !== undefined) classes.push('degraded');
  if (node.mislabeled) classes.push('mislabeled');
  if (node.name === state.node) classes.push('chosen');
  const button = element(
    'button',
    { type: 'button', class: classes.join(' '), 'aria-label': label, title: label, 'data-node': node.name },
    [
      element('span', { class: 'node-name', text: node.name }),
      cp.length
        ? element('span', {
            class: 'node-cp',
            text: `${node.etcdLeader ? '★ ' : ''}${cp.map((c) => c.replace('kube-', '')).join(' ')}`,
          })
        : undefined,
      ...nodeFacts(node).map((fact) => element('span', { class: 'node-fact', text: fact })),
    ],
  );
  return button;
}

function nodeButton(name, text, cls) {
  return element('button', { type: 'button', class: cls, 'data-node': name, text });
}

/** Chooses a node: its record opens below the map, and stays open across updates. */
export async function showNode(name, focus = true) {
  state.node = name;
  for (const chip of document.querySelectorAll('.node.chosen')) chip.classList.remove('chosen');
  for (const chip of document.querySelectorAll(`.node[data-node="${CSS.escape(name)}"]`)) chip.classList.add('chosen');
  const record = await ask(`node?name=${encodeURIComponent(name)}`);
  if (state.node !== name) return;
  const panel = byId('node');
  if (record.why) return panel.replaceChildren(why(record.why));
  panel.replaceChildren(...nodePanel(record));
  if (focus) panel.focus();
}

function nodePanel(record) {
  const status = !record.ready ? 'not Ready' : record.cordoned ? 'cordoned' : 'schedulable';
  const degraded = record.degraded
    ? `degraded: RTT to its zone's peers ${ms(record.degraded.rttMs)}, the zone's ${ms(record.degraded.zoneRttMs)}`
    : 'not degraded';
  const gpus = record.gpus
    ? `GPUs: ${record.gpus.product ?? 'unknown product'} ×${record.gpus.count}${record.gpus.free === undefined ? ' (DRA devices)' : `, ${record.gpus.free} free`}`
    : 'no GPUs';
  return [
    element('h3', { text: `Node ${record.name}` }),
    element('p', { text: `${record.path.join(' › ')} — ${status}, ${degraded}; ${gpus}.` }),
    record.numa.length
      ? table(
          'Free per NUMA cell',
          ['cell', 'CPUs', 'memory GiB'],
          record.numa.map((c) => [c.name, c.cpu, c.memoryGiB]),
        )
      : why('No NUMA cells: no NodeResourceTopology object for this node.'),
    record.controlPlane.length
      ? table(
          record.etcdLeader ? 'Control plane here (★ the etcd leader)' : 'Control plane here',
          ['component', 'leader', 'latest figures'],
          record.controlPlane.map((c) => [
            c.component,
            c.leader ? 'yes' : 'no',
            c.figures.map((f) => `${f.figure}: ${ms(f.valueMs)}`).join('; ') || '—',
          ]),
        )
      : undefined,
    element('details', {}, [
      element('summary', { text: `${Object.keys(record.labels).length} labels` }),
      element(
        'ul',
        { class: 'labels' },
        Object.entries(record.labels).map(([k, v]) => element('li', { text: `${k}=${v}` })),
      ),
    ]),
  ].filter(Boolean);
}
