/**
 * What a log line says of an error: the first line of its message, at most `max` characters (a
 * Redis or BullMQ message can run over many lines; never a stack). An error without a message is
 * named by its name, and anything else by what it is, never as "undefined".
 */
export function errorLine(error: unknown, max = 200): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  const text =
    typeof message === 'string' && message !== ''
      ? message
      : error instanceof Error
        ? error.name
        : typeof error === 'string' && error !== ''
          ? error
          : `an error without a message (${error === null ? 'null' : typeof error})`;
  return text.split('\n', 1)[0].slice(0, max);
}
