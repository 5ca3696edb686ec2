/**
 * Probes until `accept` takes the value (and resolves with it), or fails naming `what` and the last value once
 * `withinMs` has passed.
 */
export async function eventually<T>(what: string, probe: () => T | Promise<T>, accept: (value: T) => boolean, withinMs: number, everyMs = 50): Promise<T> {
  const started = performance.now();
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (performance.now() - started > withinMs) throw new Error(`${what}: still ${JSON.stringify(value)} after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
