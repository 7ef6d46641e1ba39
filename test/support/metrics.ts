/** Reads Prometheus text exposition, for the suites that check the metrics move. */

/** `name{a="b",c="d"} 12` lines, as a map from `name{labels}` (labels sorted) to their value. */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample: ${line}`);
    const labels = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}="${v}"`).sort();
    samples.set(`${match[1]}{${labels.join(',')}}`, Number(match[3]));
  }
  return samples;
}

/** The value of `name` with exactly these labels, 0 when there is no such sample yet. */
export function sample(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  const key = `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(',')}}`;
  return samples.get(key) ?? 0;
}

/** Scrapes `url` and parses it. */
export async function scrape(url: string): Promise<Map<string, number>> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return parseMetrics(await res.text());
}
