/** Injection tokens of the module. */

/** The resolved binding paths (fixed when the module is compiled: Nest routes are static). */
export const A2A_ROUTES = Symbol('A2A:ROUTES');
