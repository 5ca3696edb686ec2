import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The result of checking one fixture: `ok`, or the list of differences found. */
export interface FixtureOutcome {
  name: string;
  ok: boolean;
  diffs: string[];
  /** Why the fixture's expectation was edited before the check (see fixture-deviations.ts). */
  deviation?: string;
  /** Why the fixture was not run (a feature Gavel does not have); neither passed nor failed. */
  notRun?: string;
}

/** Every `.json` file below `dir`, sorted, recursing into sub-folders. */
export function listFixtureFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...listFixtureFiles(path));
    else if (entry.endsWith('.json')) files.push(path);
  }
  return files;
}

/**
 * Compares two JSON values and lists the differences by path. Object key order is ignored; array order counts.
 */
export function diffJson(expected: unknown, actual: unknown, path = '$'): string[] {
  if (expected === actual) return [];
  if (typeof expected === 'number' && typeof actual === 'number' && Math.abs(expected - actual) < 1e-9) return [];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${brief(actual)}`];
    const diffs: string[] = [];
    if (expected.length !== actual.length) diffs.push(`${path}: expected ${expected.length} elements, got ${actual.length}`);
    const n = Math.min(expected.length, actual.length);
    for (let i = 0; i < n; i++) diffs.push(...diffJson(expected[i], actual[i], `${path}[${i}]`));
    return diffs;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: expected an object, got ${brief(actual)}`];
    const diffs: string[] = [];
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    for (const key of Object.keys(e)) {
      if (!(key in a)) diffs.push(`${path}.${key}: missing (expected ${brief(e[key])})`);
      else diffs.push(...diffJson(e[key], a[key], `${path}.${key}`));
    }
    for (const key of Object.keys(a)) if (!(key in e)) diffs.push(`${path}.${key}: unexpected ${brief(a[key])}`);
    return diffs;
  }
  return [`${path}: expected ${brief(expected)}, got ${brief(actual)}`];
}

function brief(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'undefined' : text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** What every endpoint fixture states about the HTTP exchange. */
export interface ExchangeExpectation {
  expectedReturnCode?: number;
  expectedErrorMessage?: string;
}

/**
 * The checks every endpoint runner makes first: the status, and `expectedErrorMessage` contained in the body. When
 * those pass and the fixture expects a JSON answer, the body parsed; otherwise the diffs that end the comparison.
 */
export function compareExchange(fixture: ExchangeExpectation, status: number, text: string, expectsBody: boolean): { diffs: string[]; body?: Record<string, any> } {
  const diffs: string[] = [];
  const expectedStatus = fixture.expectedReturnCode ?? 200;
  if (status !== expectedStatus) diffs.push(`status: expected ${expectedStatus}, got ${status}: ${text.slice(0, 300)}`);
  if (fixture.expectedErrorMessage && !text.includes(fixture.expectedErrorMessage.trim())) {
    diffs.push(`body: expected to contain ${JSON.stringify(fixture.expectedErrorMessage)}, got ${JSON.stringify(text.slice(0, 300))}`);
  }
  if (!expectsBody || diffs.length > 0) return { diffs };
  try {
    return { diffs, body: JSON.parse(text) as Record<string, any> };
  } catch {
    return { diffs: [`body: not JSON: ${text.slice(0, 200)}`] };
  }
}
