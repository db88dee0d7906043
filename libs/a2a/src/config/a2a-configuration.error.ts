/**
 * A configuration mistake found at start-up. Lists every problem at once, each saying what to fix.
 * @publicApi
 */
export class A2AConfigurationError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`nestjs-a2a is misconfigured:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'A2AConfigurationError';
  }
}
