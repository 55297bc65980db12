// Over the last hour: the RTT of a zone pair as the model saw it (p50 solid,
// p99 dashed), and the etcd leader's changes and the nodes that became or
// stopped being degraded.

import { ask, byId, element, ms, replace, svg, why } from './dom.js';

const state = { pair: undefined, pairs: '' };
const chart = { width: 640, height: 160, left: 56, right: 12, top: 12, bottom: 26 };

export function choosePair(from, to) {
  state.pair = [from, to].sort();
  const select = byId('pair');
  if (select) select.value = state.pair.join('\u0000');
  showPair();
  byId('trend-h').scrollIntoView({ block: 'start' });
}

export function renderTrends(data) {
  const { pairs, events } = data.trends;
  if (pairs.length === 0 && events.length === 0)
    return replace('trends', why(`Nothing over time: ${data.empty.trends}`));
  const key = JSON.stringify(pairs);
  if (state.pair === undefined && pairs.length > 0) state.pair = pairs[0];
  if (key !== state.pairs || !byId('pair')) {
    state.pairs = key;
    const select = element(
      'select',
      { id: 'pair' },
      pairs.map((p) => element('option', { value: p.join('\u0000'), text: `${p[0]} ↔ ${p[1]}` })),
    );
    if (state.pair) select.value = state.pair.join('\u0000');
    select.addEventListener('change', () => {
      state.pair = select.value.split('\u0000');
      showPair();
    });
    replace(
      'trends',
      pairs.length
        ? element('p', {}, [element('label', { for: 'pair', text: 'RTT of ' }), select])
        : why('No measured link yet: the RTT trend starts with the first measurement.'),
      element('div', { id: 'pair-chart' }),
      element('div', { id: 'events' }),
    );
  }
  replace(
    'events',
    events.length
      ? element(
          'ul',
          { class: 'events', 'aria-label': 'changes, newest first' },
          events.map((e) => element('li', { class: e.kind, text: `${e.at.slice(11, 19)} ${e.kind}: ${e.text}` })),
        )
      : why('No change of the etcd leader or of degraded nodes since this view started.'),
  );
  if (state.pair) showPair();
}

async function showPair() {
  const [from, to] = state.pair;
  const found = await ask(`history?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  if (found.why || state.pair[0] !== from || state.pair[1] !== to) return;
  if (!byId('pair-chart')) return;
  replace('pair-chart', found.samples.length ? line(found) : why('No sample of this pair in the last hour.'));
}

function line({ from, to, samples }) {
  const { width, height, left, right, top, bottom } = chart;
  const end = Math.max(...samples.map((s) => s.at));
  const start = end - 3_600_000;
  const highest = Math.max(0.1, ...samples.map((s) => s.p99Ms ?? s.p50Ms)) * 1.15;
  const x = (at) => left + ((at - start) / 3_600_000) * (width - left - right);
  const y = (value) => top + (1 - value / highest) * (height - top - bottom);
  const points = (read) =>
    samples
      .filter((s) => read(s) !== undefined)
      .map((s) => `${x(s.at).toFixed(1)},${y(read(s)).toFixed(1)}`)
      .join(' ');
  const last = samples.at(-1);
  const label = `${from} ↔ ${to} over the last hour: ${samples.length} samples, now p50 ${ms(last.p50Ms)}${last.p99Ms === undefined ? '' : `, p99 ${ms(last.p99Ms)}`}`;
  const ticks = [0, highest / 2, highest].map((v) =>
    svg('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis', text: ms(v) }),
  );
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'trend', role: 'img', 'aria-label': label }, [
    svg('title', { text: label }),
    svg('line', { x1: left, y1: y(0), x2: width - right, y2: y(0), class: 'axis-line' }),
    ...ticks,
    svg('text', { x: left, y: height - 6, class: 'axis', text: '−60 min' }),
    svg('text', { x: width - right, y: height - 6, 'text-anchor': 'end', class: 'axis', text: 'now' }),
    svg('polyline', { points: points((s) => s.p99Ms), class: 'p99' }),
    svg('polyline', { points: points((s) => s.p50Ms), class: 'p50' }),
  ]);
}
