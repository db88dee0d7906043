/**
 * Optional peer packages (`ioredis`, `bullmq`): loaded only when an option needs them, and a
 * missing one is a start-up problem that says how to install it.
 */
import { A2AConfigurationError } from './a2a-configuration.error.js';

/** The packages of `names` that cannot be loaded from here. */
export async function missingPackages(names: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const name of names) {
    try {
      await import(name);
    } catch {
      missing.push(name);
    }
  }
  return missing;
}

/** The problem of `option` needing packages that are not installed. */
export function missingPackagesProblem(option: string, missing: readonly string[]): string {
  return `${option}: needs ${missing.join(' and ')}, which ${missing.length > 1 ? 'are' : 'is'} not installed: npm install ${missing.join(' ')}`;
}

/**
 * Loads the optional packages `option` needs, in order.
 * @throws A2AConfigurationError naming every missing one, with the command that installs them
 */
export async function importOptionalPackages<T extends unknown[]>(option: string, names: { [K in keyof T]: string }): Promise<T> {
  const loaded: unknown[] = [];
  const missing: string[] = [];
  for (const name of names as string[]) {
    try {
      loaded.push(await import(name));
    } catch {
      missing.push(name);
    }
  }
  if (missing.length > 0) throw new A2AConfigurationError([missingPackagesProblem(option, missing)]);
  return loaded as T;
}
