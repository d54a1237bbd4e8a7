import { createServer } from "node:net";
import { MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";

/** A port nobody listens on right now (the app's httpPort takes a fixed number). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function get(port: number, path: string): Promise<{ status: number; text: string; json: () => Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

/**
 * The sum of a Prometheus metric's samples whose labels include `labels`: one line per
 * sample, `name{label="v",...} value`.
 */
export function promValue(text: string, name: string, labels: Record<string, string | number> = {}): number | null {
  let total: number | null = null;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const body = match[3] ?? "";
    if (!Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`))) continue;
    total = (total ?? 0) + Number(match[4]);
  }
  return total;
}

/** A reader the test collects from when it wants (the in-memory counterpart of a scrape). */
export class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}

  /** The summed value of a counter's (or gauge's) data points whose attributes include `attributes`. */
  async value(name: string, attributes: Record<string, string | number> = {}): Promise<number | null> {
    const { resourceMetrics } = await this.collect();
    return valueIn(resourceMetrics, name, attributes);
  }

  /** The total count of a histogram's data points. */
  async histogramCount(name: string, attributes: Record<string, string | number> = {}): Promise<number | null> {
    const { resourceMetrics } = await this.collect();
    let total: number | null = null;
    for (const point of points(resourceMetrics, name, attributes)) total = (total ?? 0) + ((point.value as { count?: number }).count ?? 0);
    return total;
  }
}

function valueIn(resourceMetrics: ResourceMetrics, name: string, attributes: Record<string, string | number>): number | null {
  let total: number | null = null;
  for (const point of points(resourceMetrics, name, attributes)) total = (total ?? 0) + (point.value as number);
  return total;
}

function* points(resourceMetrics: ResourceMetrics, name: string, attributes: Record<string, string | number>) {
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== name) continue;
      for (const point of metric.dataPoints) {
        if (Object.entries(attributes).every(([k, v]) => point.attributes[k] === v)) yield point;
      }
    }
  }
}
