import type { IncomingMessage, ServerResponse } from "node:http";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";

/**
 * The app's own MeterProvider, read by the Prometheus exporter behind GET /metrics. Every
 * metric the app records goes here as well as to the configured provider, so /metrics
 * shows exactly what the app registered, whichever provider the user passed (an SDK
 * MeterProvider takes its readers at construction, so none can be added to the user's).
 */
export class PrometheusMetrics {
  readonly provider: MeterProvider;
  readonly #exporter: PrometheusExporter;

  constructor() {
    this.#exporter = new PrometheusExporter({ preventServerStart: true });
    this.provider = new MeterProvider({ readers: [this.#exporter] });
  }

  /** Answers a scrape with the Prometheus text format. */
  serve(request: IncomingMessage, response: ServerResponse): void {
    this.#exporter.getMetricsRequestHandler(request, response);
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}
