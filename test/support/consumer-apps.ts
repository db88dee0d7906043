/**
 * Fresh apps that use the packed `nestjs-a2a` as a user's app would: `npm pack` of the library, then
 * for each kind of app (Nest 12 ESM, Nest 12 CommonJS, Nest 11 CommonJS) a folder with the package.json
 * and tsconfig of `nest new` for that kind, the source files of the README's "Add it to your app"
 * (extracted from its fenced blocks, so the README is proven as written), a plain `npm install`, the
 * TypeScript that kind of app uses, and `node dist/main.js` on 127.0.0.1.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { waitUntil } from 'nestjs-a2a/testing';
import { freePort } from './ports.js';

const run = promisify(execFile);
const ROOT = process.cwd();
const LIBRARY = join(ROOT, 'libs/a2a');

export interface AppKind {
  /** `Nest 12, ESM` … */
  label: string;
  folder: string;
  esm: boolean;
  /** The dependencies `nest new` writes for this kind, plus the module and what the README's files import. */
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  /** `nest new` leaves `strict` off unless asked; one kind is compiled strict, so the files hold both ways. */
  strict: boolean;
}

/**
 * The apps `nest new` makes today, with the TypeScript each really gets (npm's latest `typescript` is the
 * 7.x native port, which neither template asks for): Nest 12 pins `^6.0.2`, Nest 11 `^5.7.3` (5.9.x).
 */
const NEST_12 = {
  dependencies: { '@nestjs/common': '^12.0.1', '@nestjs/core': '^12.0.1', '@nestjs/platform-express': '^12.0.1', '@nestjs/config': '^12.0.1', 'reflect-metadata': '^0.2.2', rxjs: '^7.8.1' },
  devDependencies: { typescript: '6.0.3', '@types/node': '^24.0.0', '@types/express': '^5.0.0' },
};
const NEST_11 = {
  dependencies: { '@nestjs/common': '^11.0.1', '@nestjs/core': '^11.0.1', '@nestjs/platform-express': '^11.0.1', '@nestjs/config': '^4.0.0', 'reflect-metadata': '^0.2.2', rxjs: '^7.8.1' },
  devDependencies: { typescript: '5.9.3', '@types/node': '^24.0.0', '@types/express': '^5.0.0' },
};

export const APP_KINDS: AppKind[] = [
  { label: 'Nest 12, ESM', folder: 'nest12-esm', esm: true, strict: true, ...NEST_12 },
  { label: 'Nest 12, CommonJS', folder: 'nest12-cjs', esm: false, strict: false, ...NEST_12 },
  { label: 'Nest 11, CommonJS', folder: 'nest11-cjs', esm: false, strict: false, ...NEST_11 },
];

/** The tsconfig.json of `nest new` for the kind (Nest 12's and Nest 11's differ a little). */
function tsconfigOf(kind: AppKind): unknown {
  const common = {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    resolvePackageJsonExports: true,
    esModuleInterop: true,
    isolatedModules: true,
    declaration: true,
    removeComments: true,
    emitDecoratorMetadata: true,
    experimentalDecorators: true,
    allowSyntheticDefaultImports: true,
    target: 'ES2023',
    sourceMap: true,
    outDir: './dist',
    incremental: true,
    skipLibCheck: true,
  };
  if (kind.dependencies['@nestjs/core'].startsWith('^11')) {
    return { compilerOptions: { ...common, baseUrl: './', strictNullChecks: true, forceConsistentCasingInFileNames: true, noImplicitAny: kind.strict, strictBindCallApply: kind.strict, noFallthroughCasesInSwitch: kind.strict } };
  }
  return { compilerOptions: { ...common, rootDir: '.', strict: kind.strict, strictPropertyInitialization: false, types: ['node'] } };
}

/** The README's "Add it to your app" files: each fenced `ts` block whose first line is `// src/<path>`. */
export async function readmeAppFiles(): Promise<Map<string, string>> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Add it to your app');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const files = new Map<string, string>();
  for (const [, path, body] of section.matchAll(/```ts\n\/\/ (src\/[\w./-]+\.ts)\n([\s\S]*?)```/g)) files.set(path, `// ${path}\n${body}`);
  return files;
}

/** The shell commands of the README's "The first call" (curl, then the CLI), one string each, continuation lines joined. */
export async function readmeFirstCalls(): Promise<string[]> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n### The first call');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const commands: string[] = [];
  for (const [, block] of section.matchAll(/```bash\n([\s\S]*?)```/g)) {
    for (const command of block.replace(/\\\n\s*/g, ' ').split('\n')) if (command.trim() !== '' && !command.startsWith('#')) commands.push(command);
  }
  return commands;
}

/** `npm pack` of the library (its prepack builds it): the tarball's path. */
export async function packLibrary(destination: string): Promise<string> {
  await mkdir(destination, { recursive: true });
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], { cwd: LIBRARY, maxBuffer: 64 * 1024 * 1024 });
  // the prepack script's output comes first on stdout; the JSON report is the last thing
  const report = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[') + 1)) as Array<{ filename: string }>;
  return join(destination, report[0].filename);
}

/** Writes the app, installs it with a plain `npm install` (no --force, no --legacy-peer-deps) and compiles it. */
export async function buildApp(kind: AppKind, parent: string, tarball: string, files: Map<string, string>): Promise<string> {
  const dir = join(parent, kind.folder);
  await mkdir(dir, { recursive: true });
  const pkg = {
    name: `consumer-${kind.folder}`,
    version: '0.0.1',
    private: true,
    license: 'UNLICENSED',
    ...(kind.esm ? { type: 'module' } : {}),
    scripts: { build: 'tsc -p tsconfig.build.json', 'start:prod': 'node dist/main' },
    dependencies: { ...kind.dependencies, 'nestjs-a2a': `file:${tarball}` },
    devDependencies: kind.devDependencies,
  };
  await writeFile(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfigOf(kind), null, 2));
  await writeFile(join(dir, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { rootDir: './src' }, include: ['src'], exclude: ['node_modules', 'test', 'dist', '**/*spec.ts'] }, null, 2));
  for (const [path, text] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  // the machine's npm cache is shared by every app (and with this repository's own install)
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  await run('npm', ['run', 'build'], { cwd: dir });
  return dir;
}

export interface RunningConsumer {
  url: string;
  /** Everything the app printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** `node dist/main.js` on 127.0.0.1 and a free port, ready once the module's start-up line is logged. */
export async function startApp(dir: string, env: Record<string, string>): Promise<RunningConsumer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['dist/main.js'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  await waitUntil(() => gone || / ready /.test(output), { attempts: 600, intervalMs: 50 });
  const stop = async () => {
    if (!gone) child.kill('SIGTERM');
    await exited;
  };
  if (!/ ready /.test(output)) {
    await stop();
    throw new Error(`the app in ${dir} did not start:\n${output}`);
  }
  return { url: `http://127.0.0.1:${port}`, output: () => output, stop };
}
