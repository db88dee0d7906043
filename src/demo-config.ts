/** The demo's environment (README, "Configuration"). */
export interface DemoConfig {
  port: number;
  host: string;
  /** Unset: the library derives it from the bound address (http://127.0.0.1:$PORT by default). */
  publicUrl?: string;
}

export function demoConfig(env: NodeJS.ProcessEnv = process.env): DemoConfig {
  return { port: Number(env.PORT ?? 3000), host: env.HOST ?? '127.0.0.1', publicUrl: env.PUBLIC_URL || undefined };
}
