// Prometheus metrics: request counts and latency by route and status, Node process metrics, and
// whatever the modules register on the same registry (GET /metrics).
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export function registerMetrics(app: FastifyInstance, registry: Registry): void {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route and status', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the raw URL, so ids and query strings do not explode cardinality.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
}
