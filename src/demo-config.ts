/** The demo's environment (README, "The demo agent"). */
export interface DemoConfig {
  port: number;
  host: string;
  /** Unset: the library derives it from the bound address (http://127.0.0.1:$PORT by default). */
  publicUrl?: string;
  allowUnauthenticated: boolean;
  /** `alice:key1,bob:key2`: turns on the demo's API-key guard. */
  apiKeys?: string;
  /** DEMO_SIGN_CARD=1: sign the card with a key made at start-up. */
  signCard: boolean;
  /** REDIS_URL (`redis://127.0.0.1:6379/3`, database included): tasks and event logs in Redis. */
  redisUrl?: string;
}

export function demoConfig(env: NodeJS.ProcessEnv = process.env): DemoConfig {
  return {
    port: Number(env.PORT ?? 3000),
    host: env.HOST ?? '127.0.0.1',
    publicUrl: env.PUBLIC_URL || undefined,
    allowUnauthenticated: env.A2A_ALLOW_UNAUTHENTICATED === '1',
    apiKeys: env.DEMO_API_KEYS || undefined,
    signCard: env.DEMO_SIGN_CARD === '1',
    redisUrl: env.REDIS_URL || undefined,
  };
}
