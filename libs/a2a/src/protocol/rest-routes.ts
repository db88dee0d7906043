/**
 * The HTTP+JSON route table (spec §11.3, proto `google.api.http` annotations), with the
 * tenant-prefixed forms, and the matching of a request onto one operation's params.
 */
import { InvalidParamsError, MethodNotAllowedError, MethodNotFoundError } from './errors.js';
import { isPlainObject } from './json-value.js';
import { OPERATIONS, type A2AOperation } from './operations.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface RestRoute<Op extends string = A2AOperation> {
  readonly operation: Op;
  readonly method: HttpMethod;
  /** Relative to the interface URL; `{name}` binds a path segment to a request field. */
  readonly path: string;
  /** `*`: the JSON body holds the request's other fields; `none`: fields come from the query. */
  readonly body: '*' | 'none';
}

/** Un-prefixed routes; each also exists as `/{tenant}` + path. Literal routes come first. */
export const REST_ROUTES: readonly RestRoute[] = [
  { operation: 'SendMessage', method: 'POST', path: '/message:send', body: '*' },
  { operation: 'SendStreamingMessage', method: 'POST', path: '/message:stream', body: '*' },
  { operation: 'GetExtendedAgentCard', method: 'GET', path: '/extendedAgentCard', body: 'none' },
  { operation: 'ListTasks', method: 'GET', path: '/tasks', body: 'none' },
  { operation: 'CancelTask', method: 'POST', path: '/tasks/{id}:cancel', body: '*' },
  // SubscribeToTask: POST per the spec text, GET per the proto; both are served (digest §2.3.2)
  { operation: 'SubscribeToTask', method: 'POST', path: '/tasks/{id}:subscribe', body: '*' },
  { operation: 'SubscribeToTask', method: 'GET', path: '/tasks/{id}:subscribe', body: 'none' },
  { operation: 'GetTask', method: 'GET', path: '/tasks/{id}', body: 'none' },
  { operation: 'CreateTaskPushNotificationConfig', method: 'POST', path: '/tasks/{taskId}/pushNotificationConfigs', body: '*' },
  { operation: 'ListTaskPushNotificationConfigs', method: 'GET', path: '/tasks/{taskId}/pushNotificationConfigs', body: 'none' },
  { operation: 'GetTaskPushNotificationConfig', method: 'GET', path: '/tasks/{taskId}/pushNotificationConfigs/{id}', body: 'none' },
  {
    operation: 'DeleteTaskPushNotificationConfig',
    method: 'DELETE',
    path: '/tasks/{taskId}/pushNotificationConfigs/{id}',
    body: 'none',
  },
];

interface CompiledRoute<Op extends string> {
  readonly route: RestRoute<Op>;
  readonly pattern: RegExp;
  readonly names: string[];
}

function compile<Op extends string>(route: RestRoute<Op>, tenantPrefixed: boolean): CompiledRoute<Op> {
  const names: string[] = tenantPrefixed ? ['tenant'] : [];
  // a task id never holds ':' (ids are ours), so `/tasks/x:cancel` cannot be read as GetTask
  const body = route.path
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return name === 'id' && route.path.includes('/tasks/{id}') ? '([^/:]+)' : '([^/]+)';
    });
  return { route, pattern: new RegExp(`^${tenantPrefixed ? '/([^/]+)' : ''}${body}/?$`), names };
}

export interface RestMatch<Op extends string = A2AOperation> {
  readonly route: RestRoute<Op>;
  /** Path-bound request fields, URL-decoded (`id`, `taskId`, `tenant`). */
  readonly pathParams: Record<string, string>;
}

/**
 * A matcher over a route table: finds the route for `method` + `path` (the part after the
 * interface URL), the table's routes first, then (with `tenants`) their `/{tenant}` forms.
 * The matcher throws MethodNotFoundError for an unknown path, MethodNotAllowedError for a known
 * path with the wrong method, InvalidParamsError for a path segment that is not valid
 * percent-encoding.
 */
export function restRouteMatcher<Op extends string>(routes: readonly RestRoute<Op>[], options: { tenants: boolean }): (method: string, path: string) => RestMatch<Op> {
  const compiled = [...routes.map((r) => compile(r, false)), ...(options.tenants ? routes.map((r) => compile(r, true)) : [])];
  return (method, path) => matchCompiled(compiled, method, path);
}

/** Finds the route of the 1.0 table for `method` + `path` (see {@link restRouteMatcher}). */
export const matchRestRoute: (method: string, path: string) => RestMatch = restRouteMatcher(REST_ROUTES, { tenants: true });

function matchCompiled<Op extends string>(routes: readonly CompiledRoute<Op>[], method: string, path: string): RestMatch<Op> {
  let allowed: HttpMethod[] = [];
  for (const compiled of routes) {
    const m = compiled.pattern.exec(path);
    if (!m) continue;
    if (compiled.route.method !== method) {
      allowed.push(compiled.route.method);
      continue;
    }
    const pathParams: Record<string, string> = {};
    compiled.names.forEach((name, i) => {
      try {
        pathParams[name] = decodeURIComponent(m[i + 1]);
      } catch {
        throw InvalidParamsError.field(name, 'is not valid percent-encoding');
      }
    });
    return { route: compiled.route, pathParams };
  }
  allowed = [...new Set(allowed)];
  if (allowed.length > 0) throw new MethodNotAllowedError(`Method ${method} is not allowed here; use ${allowed.join(', ')}`, { allow: allowed.join(', ') });
  throw new MethodNotFoundError(`No A2A operation at ${method} ${path.slice(0, 200)}`);
}

/**
 * Builds an operation's params from a REST request: body fields (for `body: "*"` routes), then
 * query fields, then path fields, the path winning (as in HTTP/JSON transcoding).
 */
export function restParams(match: RestMatch, query: Record<string, unknown>, body: unknown): Record<string, unknown> {
  const isObject = isPlainObject(body);
  if (match.route.body === '*' && body !== undefined && !isObject) throw InvalidParamsError.field('(body)', 'must be a JSON object');
  const fromBody = match.route.body === '*' && isObject ? body : {};
  return { ...fromBody, ...queryFields(match.route.operation, query), ...match.pathParams };
}

/** Query values are strings: boolean fields are converted here; the codec reads int32, enums and timestamps from strings. */
function queryFields(operation: A2AOperation, query: Record<string, unknown>): Record<string, unknown> {
  const fields = OPERATIONS[operation].request.fields;
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    const isBool = fields[key]?.type === 'bool';
    out[key] = isBool && value === 'true' ? true : isBool && value === 'false' ? false : value;
  }
  return out;
}
