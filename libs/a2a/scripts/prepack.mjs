// Before `npm pack` / `npm publish`: a full build, then every file in dist/ that this build did not
// emit is removed (a leftover of an older build never reaches the tarball; dist/ itself stays, so
// a test running the built CLI meanwhile is not pulled from under), and the repository's README,
// CHANGELOG and LICENSE are copied beside it (npm takes them from the package folder only; the
// copies are git-ignored).
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const root = join(pkg, '..', '..');
const dist = join(pkg, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const listed = execFileSync(process.execPath, [tsc, '-p', join(pkg, 'tsconfig.lib.json'), '--listEmittedFiles'], { encoding: 'utf8' });
const emitted = new Set(listed.split('\n').filter((line) => line.startsWith('TSFILE: ')).map((line) => resolve(line.slice('TSFILE: '.length).trim())));
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  const file = join(entry.parentPath, entry.name);
  if (entry.isFile() && !emitted.has(file)) rmSync(file);
}
for (const file of ['README.md', 'CHANGELOG.md', 'LICENSE']) copyFileSync(join(root, file), join(pkg, file));
