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
      // NodeNext lets `./x.js` name `./x.ts`: both are the same edge of the graph.
      local: specs.filter((s) => s.startsWith('.'))
        .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)).replace(/\.js$/, '.ts')),
      external: specs.filter((s) => !s.startsWith('.')),
    };
  });
}

/** The code of a file without its comments (for the scans of names that are not imports). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const sources = read();
const moduleOf = (file: string) => /^modules\/([^/]+)\//.exec(file)?.[1];
const offences = (check: (s: Source) => string[]) => sources.flatMap(check).sort();

test('every local import names a file of src/, literally (no computed import paths)', () => {
  const files = new Set(sources.map((s) => s.file));
  assert.deepEqual(offences((s) => s.local.filter((i) => !files.has(i) && !i.startsWith('../')).map((i) => `${s.file} imports missing ${i}`)), []);
  assert.deepEqual(offences((s) => (/\bimport\(\s*[^'"\s]/.test(code(s.text)) ? [`${s.file} has an import() of a computed path`] : [])), []);
});

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

test('the racing domain is pure: it imports only itself and the error catalogue (no I/O, no framework, no SQL)', () => {
  assert.deepEqual(offences((s) => (s.file.startsWith('racing/')
    ? [...s.external, ...s.local.filter((l) => !l.startsWith('racing/') && l !== 'errors.ts')].map((i) => `${s.file} imports ${i}`)
    : [])), []);
  const ambient = /\b(process|fetch|require|globalThis|setTimeout|setInterval|console|Date\.now)\b/g;
  assert.deepEqual(offences((s) => (s.file.startsWith('racing/')
    ? [...code(s.text).matchAll(ambient)].map((m) => `${s.file} uses ${m[0]}`)
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

test('only the HTTP and GraphQL adapters import the web framework inside modules/', () => {
  const web = (i: string) => ['fastify', 'fastify-plugin', 'mercurius', 'graphql'].includes(i) || i.startsWith('@fastify/');
  assert.deepEqual(offences((s) => (s.file.startsWith('modules/') && !/\.(http|graphql)\.ts$/.test(s.file)
    ? s.external.filter(web).map((i) => `${s.file} imports ${i}`)
    : [])), []);
});

test('services are built in one place: the composition root (src/services.ts), or inside their own module', () => {
  assert.deepEqual(offences((s) => (s.file === 'services.ts' ? [] : serviceFactoriesImported(s).map((name) => `${s.file} imports ${name}`))), []);
});

test('production code never imports from test/', () => {
  assert.deepEqual(offences((s) => s.local.filter((i) => i.startsWith('../')).map((i) => `${s.file} imports ${i}`)), []);
});

/** The service factories (`create…` values of another module's `*.service.ts`) a file imports, aliases seen through. */
function serviceFactoriesImported(s: Source): string[] {
  const tree = ts.createSourceFile(s.file, s.text, ts.ScriptTarget.Latest);
  return tree.statements.filter(ts.isImportDeclaration).flatMap((decl) => {
    const from = (decl.moduleSpecifier as ts.StringLiteral).text;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(s.file), from));
    const bindings = decl.importClause?.namedBindings;
    if (!/\.service\.(ts|js)$/.test(from) || decl.importClause?.isTypeOnly) return [];
    if (moduleOf(s.file) !== undefined && moduleOf(s.file) === moduleOf(target)) return [];
    if (bindings && ts.isNamespaceImport(bindings)) return [`* from ${from}`];
    return (bindings?.elements ?? []).filter((e) => !e.isTypeOnly && (e.propertyName ?? e.name).text.startsWith('create'))
      .map((e) => (e.propertyName ?? e.name).text);
  });
}

/** Whether every import of `target` in the file is `import type` (types of a row shape, no code). */
function isTypeOnly(s: Source, target: string): boolean {
  const rel = path.posix.relative(path.posix.dirname(s.file), target);
  const spec = rel.startsWith('.') ? rel : `./${rel}`;
  const lines = s.text.split('\n').filter((l) => l.includes(`'${spec}'`));
  return lines.length > 0 && lines.every((l) => /^import type /.test(l));
}
