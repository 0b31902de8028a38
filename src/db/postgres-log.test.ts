// The embedded PostgreSQL's output as JSON log lines: the server's own lines at a fitting level,
// a client's errors dropped, initdb's chatter at debug; chunks split into lines.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Logger } from '../log.ts';
import { postgresLogSink } from './postgres-log.ts';

function recorder() {
  const lines: Array<[string, string, Record<string, unknown>]> = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push([level, message, fields]);
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), fatal: at('fatal') };
  return { log, lines };
}

const T = '2026-11-23 14:49:41.831 UTC';

test('server lines: LOG is debug, WARNING warn, FATAL and PANIC error; a client backend\'s problems are dropped with their details', () => {
  const { log, lines } = recorder();
  const sink = postgresLogSink(log);
  sink.write(`${T} [27682] <postmaster> LOG:  database system is ready to accept connections\n`);
  sink.write(`${T} [27700] <client backend> ERROR:  division by zero\n${T} [27700] <client backend> STATEMENT:  SELECT 1/0\n`);
  sink.write(`${T} [27701] <client backend> FATAL:  terminating connection due to administrator command\n`);
  sink.write(`${T} [27686] <checkpointer> LOG:  checkpoint complete: wrote 1019 buffers\n`);
  sink.write(`${T} [27682] <postmaster> WARNING:  something the operator should see\n${T} [27682] <postmaster> HINT:  and its hint\n`);
  sink.write(`${T} [27682] <postmaster> FATAL:  could not create any TCP/IP sockets\n`);
  assert.deepEqual(lines.map(([level, message]) => [level, message]), [
    ['debug', 'database system is ready to accept connections'],
    ['debug', 'checkpoint complete: wrote 1019 buffers'],
    ['warn', 'something the operator should see'],
    ['warn', 'and its hint'],
    ['error', 'could not create any TCP/IP sockets'],
  ]);
  assert.deepEqual(lines[0]![2], { module: 'postgres', pg_pid: 27682, backend: 'postmaster', severity: 'LOG' });
});

test('chunks are split into lines, a partial line waits for the rest; initdb\'s text is debug, its warnings warn', () => {
  const { log, lines } = recorder();
  const sink = postgresLogSink(log);
  sink.write('selecting default "max_connections" ... ');
  sink.write('100\nselecting default "shared_buffers" ... 128MB\n\nSuccess. You can now start the database server using:\n');
  sink.write('[STDERR] initdb: warning: enabling "trust" authentication for local connections\n');
  sink.write('    pg_ctl -D /data -l logfile start');
  sink.flush();
  assert.deepEqual(lines.map(([level, message]) => [level, message]), [
    ['debug', 'selecting default "max_connections" ... 100'],
    ['debug', 'selecting default "shared_buffers" ... 128MB'],
    ['debug', 'Success. You can now start the database server using:'],
    ['warn', 'initdb: warning: enabling "trust" authentication for local connections'],
    ['warn', 'pg_ctl -D /data -l logfile start'], // a continuation line keeps the level of the line before
  ]);
});
