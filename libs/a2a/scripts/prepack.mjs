// Before `npm pack` / `npm publish`: a clean build (no file left over from an older one reaches the
// tarball), and the repository's README, CHANGELOG and LICENSE beside it (npm takes them from the
// package folder only; the copies are git-ignored).
import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const root = join(pkg, '..', '..');
rmSync(join(pkg, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(pkg, 'tsconfig.lib.json')], { stdio: 'inherit' });
for (const file of ['README.md', 'CHANGELOG.md', 'LICENSE']) copyFileSync(join(root, file), join(pkg, file));
