// The layout stays true (docs/architecture.md): a small check over the import graph of src/,
// type-only imports included, read with TypeScript's own pre-processor.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const SRC = path.resolve(import.meta.dirname, '../src');

interface Source {
  /** Path under src/, with forward slashes. */
  file: string;
  text: string;
  /** Files under src/ it imports (relative imports resolved). */
  local: string[];
  /** Packages and node: modules it imports. */
  external: string[];
}

function read(): Source[] {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  return files.map((file) => {
    const text = readFileSync(path.join(SRC, file), 'utf8');
    const specs = ts.preProcessFile(text, true, true).importedFiles.map((i) => i.fileName);
    return {
      file,
      text,
      local: specs.filter((s) => s.startsWith('.')).map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s))),
      external: specs.filter((s) => !s.startsWith('.')),
    };
  });
}

const sources = read();
const moduleOf = (file: string) => /^modules\/([^/]+)\//.exec(file)?.[1];
const offences = (check: (s: Source) => string[]) => sources.flatMap(check).sort();

test('the import graph has no cycle, type-only imports included', () => {
  const graph = new Map(sources.map((s) => [s.file, s.local]));
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, trail: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});

test('the racing domain is pure: it imports nothing but itself (no I/O, no framework, no SQL)', () => {
  assert.deepEqual(offences((s) => (s.file.startsWith('racing/')
    ? [...s.external, ...s.local.filter((l) => !l.startsWith('racing/'))].map((i) => `${s.file} imports ${i}`)
    : [])), []);
});

test('the wallet wire protocol imports only the racing domain, the error catalogue and node:crypto', () => {
  const allowed = (i: string) => i.startsWith('racing/') || i.startsWith('wallet-protocol/') || i === 'errors.ts' || i === 'node:crypto';
  assert.deepEqual(offences((s) => (s.file.startsWith('wallet-protocol/')
    ? [...s.external, ...s.local].filter((i) => !allowed(i)).map((i) => `${s.file} imports ${i}`)
    : [])), []);
});

test('a module\'s queries are imported only from inside that module, and import only db/', () => {
  assert.deepEqual(offences((s) => s.local
    .filter((i) => i.endsWith('.queries.ts') && moduleOf(i) !== moduleOf(s.file))
    .map((i) => `${s.file} imports ${i}`)), []);
  assert.deepEqual(offences((s) => (s.file.endsWith('.queries.ts')
    ? s.local.filter((i) => !i.startsWith('db/') && !(i.endsWith('.queries.ts') && moduleOf(i) === moduleOf(s.file)) && !isTypeOnly(s, i))
      .map((i) => `${s.file} imports ${i}`)
    : [])), []);
});

test('operator tools import no service module: only the racing domain, the wire protocol and the database pool', () => {
  const allowed = (i: string) => /^(tools|racing|wallet-protocol)\//.test(i) || i === 'db/pool.ts' || i === 'errors.ts';
  assert.deepEqual(offences((s) => (s.file.startsWith('tools/')
    ? s.local.filter((i) => !allowed(i)).map((i) => `${s.file} imports ${i}`)
    : [])), []);
});

test('only the HTTP and GraphQL adapters import Fastify inside modules/', () => {
  assert.deepEqual(offences((s) => (s.file.startsWith('modules/') && !/\.(http|graphql)\.ts$/.test(s.file)
    ? s.external.filter((i) => i === 'fastify' || i.startsWith('@fastify/')).map((i) => `${s.file} imports ${i}`)
    : [])), []);
});

test('services are built in one place: the composition root (src/services.ts)', () => {
  const builds = /(?<!function )\bcreate[A-Z]\w*Service\(/g;
  assert.deepEqual(offences((s) => (s.file === 'services.ts'
    ? []
    : [...s.text.matchAll(builds)].map((m) => `${s.file} calls ${m[0]}`))), []);
});

test('production code never imports from test/', () => {
  assert.deepEqual(offences((s) => s.local.filter((i) => i.startsWith('../')).map((i) => `${s.file} imports ${i}`)), []);
});

/** Whether every import of `target` in the file is `import type` (types of a row shape, no code). */
function isTypeOnly(s: Source, target: string): boolean {
  const rel = path.posix.relative(path.posix.dirname(s.file), target);
  const spec = rel.startsWith('.') ? rel : `./${rel}`;
  const lines = s.text.split('\n').filter((l) => l.includes(`'${spec}'`));
  return lines.length > 0 && lines.every((l) => /^import type /.test(l));
}
