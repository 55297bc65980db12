// Building the page's elements: every value is set as text, never as HTML.

export const byId = (id) => document.getElementById(id);

const svgNs = 'http://www.w3.org/2000/svg';

export function element(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  return fill(node, attributes, children);
}

export function svg(tag, attributes = {}, children = []) {
  return fill(document.createElementNS(svgNs, tag), attributes, children);
}

function fill(node, attributes, children) {
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (key === 'text') node.textContent = value;
    // Through the CSSOM: the Content-Security-Policy refuses style attributes.
    else if (key === 'style') Object.assign(node.style, value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== undefined) node.append(child);
  return node;
}

export function table(caption, headers, rows) {
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

export function replace(id, ...children) {
  byId(id).replaceChildren(...children.filter((child) => child !== undefined));
}

/** An empty section's sentence: why there is nothing. */
export function why(text) {
  return element('p', { class: 'why', text });
}

/** GET /api/<path> as JSON; a 404 answers { why }. */
export async function ask(path) {
  const response = await fetch(`/api/${path}`);
  return response.json();
}

export const ms = (value) => (value === undefined ? '—' : `${Math.round(value * 100) / 100} ms`);

/** Heat class of an RTT: near ≤ 1 ms, mid ≤ 2 ms, far above. */
export const heat = (rttMs) => (rttMs === undefined ? 'unknown' : rttMs <= 1 ? 'near' : rttMs <= 2 ? 'mid' : 'far');
