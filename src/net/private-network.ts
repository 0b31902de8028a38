// Outbound calls to URLs a tenant chose (its wallet, its JWKS) must not become a way into our own
// network: a tenant's admin token could otherwise aim wagerline at a loopback, private or
// link-local address (cloud metadata, an internal service) and learn from what comes back or
// how long it takes. For such a URL every address is checked twice: when it is saved (a clear
// refusal) and when each connection opens, after DNS answers (a name that resolved to a public
// address when saved may resolve to a private one later). docs/admin-api.md, "Private addresses".
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, fetch, type RequestInit } from 'undici';
import { AppError } from '../errors.ts';

/** The code of a connection refused because its address is not public. */
export const PRIVATE_ADDRESS = 'EPRIVATEADDRESS';

/**
 * Public-range addresses that a cloud provider answers from inside its own network like a metadata
 * service: Azure's WireServer (168.63.129.16) hands out VM configuration to whoever asks from a VM.
 */
const CLOUD_PLATFORM_ADDRESSES = new Set(['168.63.129.16']);

function isPublicV4(v4: ipaddr.IPv4): boolean {
  return v4.range() === 'unicast' && !CLOUD_PLATFORM_ADDRESSES.has(v4.toString());
}

/**
 * Whether an address is globally routable unicast. IPv4 inside IPv6 (mapped, NAT64) is judged
 * by the IPv4 address it carries; every other special range (loopback, RFC 1918, link-local,
 * carrier-grade NAT, unique-local, multicast, documentation, reserved) is not public, nor is IPv6
 * outside global unicast 2000::/3 (the deprecated IPv4-compatible ::a.b.c.d among them), nor a
 * cloud platform's own service address.
 */
export function isPublicAddress(address: string): boolean {
  if (!net.isIP(address)) return false;
  // ipaddr.js reads IPv4-compatible ::a.b.c.d as mapped ::ffff:a.b.c.d; it is neither, and unroutable.
  if (/^::\d+\.\d+\.\d+\.\d+$/.test(new net.SocketAddress({ address, family: net.isIPv6(address) ? 'ipv6' : 'ipv4' }).address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return isPublicV4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped') return isPublicV4(v6.toIPv4Address());
  if (range === 'rfc6052' && v6.parts[1] === 0xff9b && v6.parts.slice(2, 6).every((p) => p === 0)) {
    const [hi, lo] = [v6.parts[6]!, v6.parts[7]!];
    return isPublicV4(new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]));
  }
  return range === 'unicast' && v6.parts[0]! >= 0x2000 && v6.parts[0]! <= 0x3fff;
}

/**
 * The refusal names the host as the URL gave it, never the address a name resolved to: the tenant
 * reads it (a wallet call's attempts), and our internal DNS is not its to map.
 */
function refusal(host: string): Error {
  const what = net.isIP(host) ? `${host} is not a public address` : `${host} resolves to an address that is not public`;
  return Object.assign(new Error(`${what}; this URL may only lead to public addresses`), { code: PRIVATE_ADDRESS });
}

type LookupCallback = (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void;

/** dns.lookup for net.connect that fails when any address the name resolves to is not public. */
export function publicOnlyLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const denied = addresses.find((a) => !isPublicAddress(a.address));
    if (denied) return callback(refusal(hostname), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}

/**
 * An undici connector that opens connections to public addresses only. A literal IP in the URL
 * never goes through DNS, so it is checked here; a name is checked by publicOnlyLookup.
 */
export function publicOnlyConnector(options: buildConnector.BuildOptions): buildConnector.connector {
  const connect = buildConnector({ ...options, lookup: publicOnlyLookup } as buildConnector.BuildOptions);
  return (target, callback) => {
    const host = unbracketed(target.hostname);
    if (net.isIP(host) && !isPublicAddress(host)) return callback(refusal(host), null);
    return connect(target, callback);
  };
}

let shared: Agent | undefined;

/**
 * A dispatcher for undici's fetch that reaches public addresses only (a tenant's JWKS, the check
 * of its wallet), shared by the process. Callers bound each request with their own signal.
 */
export function publicOnlyDispatcher(): Agent {
  shared ??= new Agent({ connect: publicOnlyConnector({ timeout: 10_000 }) });
  return shared;
}

/** fetch through publicOnlyDispatcher, in the shape of the global fetch (jose's customFetch). */
export const publicOnlyFetch = ((url: string, init: RequestInit) =>
  fetch(url, { ...init, dispatcher: publicOnlyDispatcher() })) as unknown as typeof globalThis.fetch;

/**
 * The save-time check of a URL that must lead to public addresses: refused (400) when the host is
 * an address or a name with any address that is not public. A name that does not resolve now is
 * let through (it may exist later; every connection is checked anyway).
 */
export async function requirePublicHost(url: string, option: string): Promise<void> {
  const host = hostOf(url);
  let addresses: string[];
  if (net.isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await dns.promises.lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return;
    }
  }
  if (addresses.every(isPublicAddress)) return;
  const where = net.isIP(host) ? `${host}, which is not a public address` : `${host}, which resolves to an address that is not public`;
  throw new AppError('private_address', `${option} leads to ${where}; only the platform may `
    + 'allow a URL on a private network (wagerline tenant set-wallet / set-auth --private-network, or the admin API with a platform token and "private_network": true)');
}

/**
 * Whether connections to a configured URL must reach public addresses only: unless its
 * configuration allows a private one (`private_network`), or WAGERLINE_PRIVATE_NETWORK=any does
 * for every tenant (`anyAddress`). Asked when the URL is saved and when it is used.
 */
export function publicOnly(privateNetwork: boolean, anyAddress = false): boolean {
  return !privateNetwork && !anyAddress;
}

/**
 * Whether a URL the platform writes may lead to private addresses when it does not say: yes for
 * an IP address (taken as written: nothing can re-point it), no for a host name (its owner could
 * re-point it at our network later; the platform says --private-network to trust it).
 */
export function platformDefault(url: string): boolean {
  return net.isIP(hostOf(url)) !== 0;
}

/** The host of a URL, an IPv6 address without its brackets. */
function hostOf(url: string): string {
  return unbracketed(new URL(url).hostname);
}

/** A URL's hostname as an address: `[::1]` → `::1`. */
function unbracketed(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1');
}
