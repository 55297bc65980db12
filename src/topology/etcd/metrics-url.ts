// Where an etcd member's metrics are, from the URL an operator gives: the scraper and the control-plane collector
// key members by it.

/** A URL without a path means its /metrics page (as etcd serves it on client and metrics URLs). */
export function etcdMetricsUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = '/metrics';
    return parsed.toString();
  } catch {
    return url;
  }
}
