// Loaded into every test process and every process a test starts (NODE_OPTIONS, set by
// scripts/test.ts): a connection to anything but this machine fails at once, so no test can reach
// the internet — or pass only because it could. Plain JavaScript: it loads before tsx does.
import net from 'node:net';

const LOCAL_HOSTS = new Set(['127.0.0.1', '::1', 'localhost', '::ffff:127.0.0.1']);

/** The host a Socket#connect call targets, or undefined for a Unix socket or the default (localhost). */
function targetHost(args) {
  const [first, second] = args;
  if (Array.isArray(first)) return targetHost(first); // net's own normalized [options, callback]
  if (first && typeof first === 'object') return first.path ? undefined : first.host;
  if (typeof first === 'string' && !/^\d+$/.test(first)) return undefined; // a Unix socket path
  return typeof second === 'string' ? second : undefined;
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const host = targetHost(args);
  if (host !== undefined && host !== '' && !LOCAL_HOSTS.has(host)) {
    const error = Object.assign(new Error(`tests may not connect outside this machine (to ${host})`), { code: 'ERR_TEST_OUTBOUND' });
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};
