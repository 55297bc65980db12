// Which Host headers the view answers: loopback names and its own listen
// address. A page elsewhere that makes the browser resolve its own name to
// 127.0.0.1 (DNS rebinding) reaches a port-forwarded view with its own name
// in Host; refusing that name keeps namespaces, Pods, policies and file paths
// off other origins. Pure: the listener asks, per request.

const loopbackNames = new Set(['localhost', '::1', '[::1]']);

/** The host part of a Host header (no port), lower-cased; undefined when it is not one. */
function hostOf(header: string): string | undefined {
  const found = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/i.exec(header.trim());
  return found?.[1]!.toLowerCase().replace(/\.$/, '');
}

function isLoopback(host: string): boolean {
  return loopbackNames.has(host) || host.endsWith('.localhost') || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** Whether the view should answer a request whose Host header is `header`, when it listens on `listenHost`. */
export function hostAllowed(header: string | undefined, listenHost: string): boolean {
  if (header === undefined) return false;
  const host = hostOf(header);
  if (host === undefined) return false;
  const listen = listenHost.toLowerCase();
  return isLoopback(host) || host === listen || host === `[${listen}]`;
}
