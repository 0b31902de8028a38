// Every CLI command but serve starts without the HTTP app: loading fastify, its plugins and
// mercurius was about 0.3 s of each command's 0.85 s start-up (README, Node.js versions).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The web packages a fresh process has loaded after importing the module at `file` (under src/). */
function webPackagesLoadedBy(file: string): string[] {
  const script = `
    import { createRequire } from 'node:module';
    await import(${JSON.stringify(path.join(ROOT, 'src', file))});
    const loaded = Object.keys(createRequire(import.meta.url).cache)
      .map((p) => /node_modules\\/((?:@fastify\\/)?[^/]+)\\//.exec(p)?.[1])
      .filter((name) => name && /^(fastify|@fastify\\/|mercurius)/.test(name));
    process.stdout.write(JSON.stringify([...new Set(loaded)]));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

test('the command line loads no web framework until serve runs', () => {
  assert.deepEqual(webPackagesLoadedBy('cli/main.ts'), []);
});

test('the check sees the web framework where it is loaded: the HTTP app', () => {
  const loaded = webPackagesLoadedBy('app.ts');
  assert.ok(loaded.includes('fastify') && loaded.includes('mercurius'), `loaded: ${loaded.join(', ')}`);
});
