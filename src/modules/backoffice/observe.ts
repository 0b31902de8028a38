// What every back-office request leaves behind: one log line with its client, its operation name
// and what came of it, and Prometheus metrics by operation (docs/operations.md). The operation of a
// metric is the root fields the request ran ("getBets", "cancelBet", "getBets+__typename"): names
// of the schema, so their number is bounded whatever clients send; "none" when nothing ran.
import { Counter, Histogram, type Registry } from 'prom-client';

/** What one request did, gathered while it runs. */
export interface RequestNote {
  clientId?: string;
  /** The operationName the client sent (clipped), for the log only. */
  operationName?: string;
  /** Root fields run, for the log and the metrics. */
  operation?: string;
  codes?: string[];
}

export interface Observer {
  note(request: object): RequestNote;
  /** Records the request: one log line and the metrics. */
  done(request: object, answer: { status: number; seconds: number; log: (fields: Record<string, unknown>, message: string) => void }): void;
}

export function createObserver(registry: Registry): Observer {
  const labelNames = ['operation', 'outcome'] as const;
  const requests = new Counter({
    name: 'backoffice_requests_total',
    help: 'Back-office GraphQL requests by operation (root fields) and outcome (ok, or the first error code)',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'backoffice_request_duration_seconds',
    help: 'Back-office GraphQL request latency by operation',
    labelNames: ['operation'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const notes = new WeakMap<object, RequestNote>();

  return {
    note(request) {
      let note = notes.get(request);
      if (!note) notes.set(request, (note = {}));
      return note;
    },
    done(request, answer) {
      const note = notes.get(request) ?? {};
      const operation = note.operation ?? 'none';
      const outcome = note.codes?.[0] ?? (answer.status < 400 ? 'ok' : `http_${answer.status}`);
      requests.inc({ operation, outcome });
      duration.observe({ operation }, answer.seconds);
      answer.log({
        client_id: note.clientId ?? null, operation_name: note.operationName ?? null, operation, status: answer.status,
        errors: note.codes ?? [], duration_ms: Math.round(answer.seconds * 1000),
      }, 'back-office request');
    },
  };
}

/** The operationName a request carries (body or query string), as text for a log line. */
export function operationNameOf(source: unknown): string | undefined {
  const name = typeof source === 'object' && source !== null ? (source as { operationName?: unknown }).operationName : undefined;
  return typeof name === 'string' ? name.slice(0, 100) : undefined;
}
