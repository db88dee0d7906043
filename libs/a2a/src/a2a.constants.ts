/** Injection tokens of the module. */

/** The resolved binding paths (fixed when the module is compiled: Nest routes are static). */
export const A2A_ROUTES = Symbol('A2A:ROUTES');

/** The host guards the module runs on every A2A route (besides the app's global guards). */
export const A2A_GUARDS = Symbol('A2A:GUARDS');

/** The module's Redis connection (`RedisConnection`), or undefined when tasks live in memory. */
export const A2A_REDIS = Symbol('A2A:REDIS');
