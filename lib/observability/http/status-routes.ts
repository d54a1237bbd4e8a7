import type { PrometheusMetrics } from "../metrics/prometheus.ts";
import { json, type Router } from "./router.ts";

/** What an instance reports about itself on GET /status (and what health is decided from). */
export interface InstanceStatus {
  applicationId: string;
  /** group.instance.id (static membership), or null. */
  instanceId: string | null;
  /** host:port other instances reach this one at (application.server), or null. */
  applicationServer: string | null;
  state: string;
  /** False once the stream thread died (an error) or stopped. */
  threadAlive: boolean;
  tasks: { active: string[]; standby: string[]; restoring: string[] };
  lag: Array<{ taskId: string; topic: string; partition: number; lag: number }>;
  /** ISO time of the last commit, or null before the first. */
  lastCommit: string | null;
  processedRecords: number;
  error: string | null;
}

/**
 * Liveness, readiness, status and metrics, as Kubernetes probes and Prometheus expect:
 * live fails only once the instance cannot recover by itself (ERROR, thread dead), never
 * during a long restore; ready needs RUNNING and every active task restored.
 */
export function addStatusRoutes(router: Router, status: () => InstanceStatus, metrics: PrometheusMetrics | null): void {
  router.get("/health/live", (_request, response) => {
    const s = status();
    if (s.threadAlive) json(response, 200, { status: "UP", state: s.state });
    else json(response, 503, { status: "DOWN", state: s.state, reason: s.error ?? `the stream thread is not running (state ${s.state})` });
  });
  router.get("/health/ready", (_request, response) => {
    const s = status();
    const reason = notReadyBecause(s);
    if (reason === null) json(response, 200, { status: "UP", state: s.state });
    else json(response, 503, { status: "DOWN", state: s.state, reason, restoring: s.tasks.restoring });
  });
  router.get("/status", (_request, response) => json(response, 200, status()));
  if (metrics) router.get("/metrics", (request, response) => metrics.serve(request, response));
}

function notReadyBecause(s: InstanceStatus): string | null {
  if (s.state !== "RUNNING") return `state is ${s.state}, not RUNNING`;
  if (s.tasks.restoring.length > 0) return `tasks ${s.tasks.restoring.join(", ")} are restoring their state`;
  return null;
}
