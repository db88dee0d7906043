/** The command line, read by a small parser of our own (no dependency for a dozen options). */

/** A mistake on the command line: exit code 2, with the usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface ParsedArgs {
  command: string | undefined;
  positionals: string[];
  /** Options that take a value, every value in order (repeatable ones keep them all). */
  values: Map<string, string[]>;
  flags: Set<string>;
}

/** Options followed by a value (`--name value` or `--name=value`). */
export const VALUE_OPTIONS = new Set([
  'binding',
  'header',
  'bearer-env',
  'api-key-env',
  'api-key-header',
  'credential-origin',
  'tenant',
  'timeout',
  'context',
  'task',
  'history',
  'status',
  'page-size',
  'page-token',
  'last-event-id',
  'name',
  'allow',
  // push
  'redis-env',
  'prefix',
  'queue-prefix',
  'retry-schedule',
  'limit',
  'agent',
  'subject',
]);

export const FLAG_OPTIONS = new Set(['json', 'allow-http', 'allow-private', 'return-immediately', 'help']);

/** Reads `argv` (without `node` and the script). `--` ends the options. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const parsed: ParsedArgs = { command: undefined, positionals: [], values: new Map(), flags: new Set() };
  let options = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (options && arg === '--') {
      options = false;
      continue;
    }
    if (options && (arg === '-h' || arg === '--help')) {
      parsed.flags.add('help');
      continue;
    }
    if (options && arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq === -1 ? undefined : eq);
      if (FLAG_OPTIONS.has(name)) {
        if (eq !== -1) throw new UsageError(`--${name} takes no value`);
        parsed.flags.add(name);
        continue;
      }
      if (!VALUE_OPTIONS.has(name)) throw new UsageError(`unknown option --${name}`);
      let value: string | undefined;
      if (eq !== -1) value = arg.slice(eq + 1);
      else {
        value = argv[i + 1];
        i += 1;
      }
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      parsed.values.set(name, [...(parsed.values.get(name) ?? []), value]);
      continue;
    }
    if (options && arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
    if (parsed.command === undefined) parsed.command = arg;
    else parsed.positionals.push(arg);
  }
  return parsed;
}

/** The last value of an option. */
export function valueOf(args: ParsedArgs, name: string): string | undefined {
  const values = args.values.get(name);
  return values === undefined ? undefined : values[values.length - 1];
}

/** A positive integer option. */
export function intOf(args: ParsedArgs, name: string, min = 1): number | undefined {
  const value = valueOf(args, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${name} must be an integer of at least ${min}`);
  return Number(value);
}
