import { PropDeskError } from '../errors';

/** A step's answer was not what the document or SPEC says: what was expected, what came. */
export class NonConformance extends Error {
  constructor(
    readonly expected: string,
    readonly got: string,
  ) {
    super(`expected ${expected}, got ${got}`);
  }
}

/** Fails the step unless `condition` holds. */
export function expectThat(condition: boolean, expected: string, got: () => string): void {
  if (!condition) throw new NonConformance(expected, got());
}

export interface Reporter {
  line(text: string): void;
}

export interface StepResult {
  name: string;
  ok: boolean;
  detail: string;
}

/**
 * Runs named steps in order, one line each; the first that does not conform stops the run.
 * `pending()` gives the answers' problems found during the step (the client's onResponse).
 */
export class Runner {
  readonly results: StepResult[] = [];
  #problems: string[] = [];

  constructor(private readonly reporter: Reporter) {}

  /** Called for every answer the API gives during the run. */
  noteProblems(problems: string[]): void {
    this.#problems.push(...problems);
  }

  async step<T>(name: string, run: () => Promise<{ value: T; detail: string }>): Promise<T> {
    this.#problems = [];
    let outcome: { value: T; detail: string } | undefined;
    let failure: string | undefined;
    try {
      outcome = await run();
    } catch (err) {
      failure = describe(err);
    }
    // An answer unlike the document is the first thing wrong, whatever the step made of it after.
    if (this.#problems.length > 0) failure = `expected answers as the OpenAPI document describes them, got: ${this.#problems.join('; ')}`;
    if (failure !== undefined) {
      this.results.push({ name, ok: false, detail: failure });
      this.reporter.line(`✗ ${name}: ${failure}`);
      throw new StepFailed(name, failure);
    }
    const { value, detail } = outcome as { value: T; detail: string };
    this.results.push({ name, ok: true, detail });
    this.reporter.line(`✓ ${name}: ${detail}`);
    return value;
  }
}

export class StepFailed extends Error {
  constructor(
    readonly step: string,
    readonly detail: string,
  ) {
    super(`${step}: ${detail}`);
  }
}

function describe(err: unknown): string {
  if (err instanceof NonConformance) return err.message;
  if (err instanceof PropDeskError) {
    const where = err.requestId ? ` (request ${err.requestId})` : '';
    return `expected a success, got ${err.status === 0 ? 'no answer' : err.status} ${err.code}: ${err.message}${where}`;
  }
  return `the check itself failed: ${err instanceof Error ? err.message : String(err)}`;
}

/** Polls until `check` gives a value, or fails the step after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number, expected: string, got: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new NonConformance(`${expected} within ${Math.round(timeoutMs / 1000)} s`, got());
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
