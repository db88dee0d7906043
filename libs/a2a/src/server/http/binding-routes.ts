/**
 * Which binding a request path belongs to, as the router would send it: the JSON-RPC endpoint, a
 * route under the HTTP+JSON base, at the root or under an agent's own path, behind the app's
 * global prefix. Platform-neutral: it reads the raw URL, so every platform can ask it before its
 * router runs (the body reader) and after (the exception filter).
 */
import { Inject, Injectable } from '@nestjs/common';
import { A2A_ROUTES } from '../../config/a2a.constants.js';
import type { ResolvedA2APaths } from '../a2a-paths.js';
import { PublicUrl } from '../public-url.js';

export type BindingName = 'jsonRpc' | 'rest';

interface Matcher {
  readonly jsonRpc?: string;
  readonly rest?: string;
  readonly agents: string;
}

@Injectable()
export class BindingRoutes {
  private matcher?: Matcher;

  constructor(
    @Inject(A2A_ROUTES) private readonly paths: ResolvedA2APaths,
    @Inject(PublicUrl) private readonly publicUrl: PublicUrl,
  ) {}

  /** The binding of a request URL (path and query), or undefined for any other route. */
  bindingOf(url: string | undefined): BindingName | undefined {
    return this.locate(url)?.binding;
  }

  /** The agent segment (still encoded, lower-cased) of a per-agent A2A path; undefined at the root paths and off A2A routes. */
  agentOf(url: string | undefined): string | undefined {
    return this.locate(url)?.agent;
  }

  private locate(url: string | undefined): { binding: BindingName; agent?: string } | undefined {
    // like the router: case-insensitive, a trailing slash tolerated
    const path = trimTrailingSlashes(pathOf(url ?? '').toLowerCase());
    // the global prefix is known once the app is set up, which is before its first request
    const { jsonRpc, rest, agents } = (this.matcher ??= this.matchers());
    const root = bindingUnder(path, jsonRpc, rest);
    if (root) return { binding: root };
    if (!path.startsWith(`${agents}/`)) return undefined;
    const afterAgents = path.slice(agents.length + 1);
    const slash = afterAgents.indexOf('/');
    const binding = slash > 0 ? bindingUnder(afterAgents.slice(slash), this.lower(this.paths.jsonRpc), this.lower(this.paths.rest)) : undefined;
    return binding && { binding, agent: afterAgents.slice(0, slash) };
  }

  private matchers(): Matcher {
    const prefixed = (path: string | false) => (path === false ? undefined : this.publicUrl.prefixed(path).toLowerCase());
    return { jsonRpc: prefixed(this.paths.jsonRpc), rest: prefixed(this.paths.rest), agents: prefixed(this.paths.agents)! };
  }

  private lower(path: string | false): string | undefined {
    return path === false ? undefined : path.toLowerCase();
  }
}

/** The path of a URL, without its query (no array made, as `split` would). */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** `path` without its trailing slashes, `/` itself kept. */
function trimTrailingSlashes(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.replace(/(.)\/+$/, '$1') : path;
}

/** JSON-RPC is one endpoint; HTTP+JSON is every route under its base. */
function bindingUnder(path: string, jsonRpc: string | undefined, rest: string | undefined): BindingName | undefined {
  if (jsonRpc !== undefined && path === jsonRpc) return 'jsonRpc';
  if (rest !== undefined && (path === rest || path.startsWith(`${rest}/`))) return 'rest';
  return undefined;
}
