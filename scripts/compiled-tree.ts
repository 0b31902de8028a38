// The checkout as JavaScript, for one test run: src/ and test/ copied with every .ts file compiled
// beside it (relative imports renamed .ts → .js), bin/ copied, everything else at the top linked.
// The suite runs there without tsx: tsx resolves and loads every module through a hooks thread,
// which doubled the start-up of each test file and of each bin/wagerline a test starts (about
// 2.8 → 1.4 s and 1.8 → 0.8 s of CPU). The transform is tsx's own (esbuild, the same options), and
// the TypeScript stays beside its JavaScript for the tests that read sources.
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const COMPILED = ['src', 'test'];

/** The files under `dir`, at any depth, whose names end with `suffix` (node_modules left out). */
export function filesEndingWith(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesEndingWith(full, suffix);
    return entry.name.endsWith(suffix) ? [full] : [];
  });
}

/** Every import stays an import (nothing is bundled); a relative one names the compiled file. */
const importsAsCompiled: Plugin = {
  name: 'imports-as-compiled',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const relative = args.path.startsWith('./') || args.path.startsWith('../');
      return { path: relative ? args.path.replace(/\.ts$/, '.js') : args.path, external: true };
    });
  },
};

/** Makes the tree at `into` (a new directory) from the checkout at `root`. */
export async function compiledTree(root: string, into: string): Promise<void> {
  mkdirSync(into, { recursive: true });
  for (const entry of readdirSync(root)) {
    if (entry.startsWith('.') || COMPILED.includes(entry) || entry === 'bin') continue;
    symlinkSync(path.join(root, entry), path.join(into, entry));
  }
  for (const dir of [...COMPILED, 'bin']) cpSync(path.join(root, dir), path.join(into, dir), { recursive: true });
  const result = await build({
    entryPoints: COMPILED.flatMap((dir) => filesEndingWith(path.join(root, dir), '.ts')),
    outdir: into,
    outbase: root,
    bundle: true,
    plugins: [importsAsCompiled],
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node}`,
    keepNames: true,
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'error',
  });
  if (result.errors.length) throw new Error(`compiling the tree failed: ${result.errors.map((e) => e.text).join('; ')}`);
}
