// Listening on a host and port, and saying in one line why it failed. Shared by the tools that
// listen (wallet-sandbox, dev-jwks) and by `serve` (src/main.ts). A failure to listen is wrapped in
// a ListenError at the listen site: a host name that does not resolve fails with the same
// ENOTFOUND as a database host that does not, and only the wrapping tells the CLI which it was.
import type { Server } from 'node:net';

/** How a caller tells its user to choose the port or the host: "set PORT", "choose another with --port". */
export interface ListenSettings {
  port: string;
  host: string;
  /** Who may hold a port already in use, e.g. "another serve?". */
  inUseHint?: string;
}

/** Error codes of a host name that cannot be resolved (getaddrinfo, before any bind). */
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);

/** Why host:port cannot be listened on, in one line naming both; undefined for an error it does not know. */
export function listenProblem(error: unknown, host: string, port: number, how: ListenSettings): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is already in use${how.inUseHint ? ` (${how.inUseHint})` : ''}: stop that process or ${how.port}`;
  if (code === 'EACCES') return `not allowed to listen on port ${port} on ${host}: use a port above 1023 (${how.port})`;
  // EINVAL: an address no socket can be bound to as given, such as an IPv6 link-local one without its zone.
  if (code === 'EADDRNOTAVAIL' || code === 'EINVAL') return `cannot listen on ${host}: not an address of this machine (${how.host})`;
  if (code !== undefined && UNRESOLVED.has(code)) return `cannot listen on ${host}: the host name cannot be resolved (${how.host})`;
  return undefined;
}

/** A failure to listen on host:port; `cause` is the error of Node. */
export class ListenError extends Error {
  readonly code: string | undefined;

  constructor(readonly host: string, readonly port: number, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    super(`cannot listen on port ${port} on ${host}${code ? ` (${code})` : ''}`, { cause });
    this.name = 'ListenError';
    this.code = code;
  }
}

/** Listens on host:port (0: any free port); resolves once listening, rejects with a ListenError. */
export function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error) => reject(new ListenError(host, port, error)));
    server.listen(port, host, () => resolve());
  });
}
