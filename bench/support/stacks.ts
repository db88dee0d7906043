/**
 * The servers the side-by-side scenarios compare, each in a process of its own: ours on Express and
 * on Fastify, in memory and on Redis; the official SDK (Express, in memory); the ceiling on each
 * platform (a bare Nest app answering a fixed Message); node:http answering the same, a check on the
 * load generator.
 *
 * This folder is not `bench/scenarios/`, so `run.ts` does not take these files for scenarios.
 */
import { out } from '../harness.js';
import { REDIS_URL } from './lifecycle.js';
import { ServerProcess, ServerUnavailable } from './server-process.js';
import type { Platform, ServerSpec } from './wire.js';

export interface StackDef {
  /** `ours-express`, `ours-express-redis`, `ours-fastify`, `ours-fastify-redis`, `sdk`, `ceiling-express`, `ceiling-fastify`. */
  readonly key: string;
  readonly label: string;
  readonly spec: ServerSpec;
}

export const SDK = 'sdk';
export const PLATFORMS: readonly Platform[] = ['express', 'fastify'];
/** How labels, goal lines and machine lines name a platform. */
export const PLATFORM_NAME: Readonly<Record<Platform, string>> = { express: 'Express', fastify: 'Fastify' };

export const oursKey = (platform: Platform, redis = false) => `ours-${platform}${redis ? '-redis' : ''}`;
export const ceilingKey = (platform: Platform) => `ceiling-${platform}`;

/** Ours on `platform`, in memory, or on Redis under `keyPrefix`. */
export function oursStack(platform: Platform, keyPrefix?: string): StackDef {
  return {
    key: oursKey(platform, keyPrefix !== undefined),
    label: `ours, ${PLATFORM_NAME[platform]}${keyPrefix !== undefined ? ', Redis' : ', in memory'}`,
    spec: { stack: 'ours', platform, redis: keyPrefix !== undefined ? { url: REDIS_URL, keyPrefix } : undefined },
  };
}

export const SDK_STACK: StackDef = { key: SDK, label: '@a2a-js/sdk, Express, in memory', spec: { stack: 'sdk', platform: 'express' } };

export const RAW = 'raw';
export const RAW_STACK: StackDef = { key: RAW, label: 'node:http, fixed answer (load check)', spec: { stack: 'raw', platform: 'express' } };

export function ceilingStack(platform: Platform): StackDef {
  return { key: ceilingKey(platform), label: `ceiling: bare Nest + ${PLATFORM_NAME[platform]}`, spec: { stack: 'ceiling', platform } };
}

/** Started servers by key; a server that did not start is kept as why. */
export class Stacks {
  private constructor(
    readonly defs: readonly StackDef[],
    private readonly started: ReadonlyMap<string, ServerProcess | ServerUnavailable>,
  ) {}

  /**
   * Starts every server, one after the other. Ours on Fastify may not start (the platform is not
   * there yet): it is kept as unavailable. Any other server that does not start fails the run.
   */
  static async start(defs: readonly StackDef[]): Promise<Stacks> {
    const started = new Map<string, ServerProcess | ServerUnavailable>();
    const stacks = new Stacks(defs, started);
    try {
      for (const def of defs) {
        const server = await ServerProcess.start(def.label, def.spec);
        if (server instanceof ServerUnavailable) {
          if (!mayBeUnavailable(def)) throw new Error(`${def.label} did not start: ${server.reason}`);
          out(`(${def.label}: not available yet, it did not start: ${server.reason.split('\n')[0]})`);
        }
        started.set(def.key, server);
      }
    } catch (error) {
      await stacks.close();
      throw error;
    }
    return stacks;
  }

  /** The server of `key`, or why it is not there. */
  get(key: string): ServerProcess | ServerUnavailable {
    const server = this.started.get(key);
    if (!server) throw new Error(`no stack ${key}`);
    return server;
  }

  label(key: string): string {
    return this.defs.find((d) => d.key === key)?.label ?? key;
  }

  /** Stops every server; says which wrote to their logs meanwhile (errors and warnings). */
  async close(): Promise<void> {
    const servers = [...this.started.values()].filter((s): s is ServerProcess => s instanceof ServerProcess);
    for (const server of servers) {
      const { lines, tail } = server.output();
      if (lines > 0) out(`(${server.label} wrote ${lines} log lines; the last: ${tail.at(-1)?.slice(0, 200)})`);
    }
    await Promise.all(servers.map((s) => s.close()));
  }
}

/**
 * Which stacks may be missing from a run ("not available yet") instead of failing it: none since ours
 * on Fastify, the last to come (issue 14), runs; a stack still to come is let in here.
 */
export function mayBeUnavailable(_def: StackDef): boolean {
  return false;
}

/** "not available yet"'s reason, short. */
export function unavailableReason(why: string): string {
  const line = why.split('\n')[0];
  return line.length > 90 ? `${line.slice(0, 87)}...` : line;
}
