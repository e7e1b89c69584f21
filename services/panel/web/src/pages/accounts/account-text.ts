import type { Account } from '../../api/types';

/**
 * An account's program and phase in words, each thing said once: a phase named after its kind
 * (the built-ins' "evaluation") is not followed by its kind again.
 */

/** "standard v1" */
export function programText(account: Account): string {
  return account.program_version ? `${account.program} v${account.program_version}` : account.program;
}

/** A phase's name, and its kind unless the name already says it: "evaluation", "Verification (evaluation)", "Funded". */
export function phaseName(phase: { name: string; kind: string }): string {
  return phase.name.trim().toLowerCase() === phase.kind ? phase.name : `${phase.name} (${phase.kind})`;
}

/** "1: evaluation", "2: Verification (evaluation)", "3: Funded" */
export function phaseText(account: Account): string {
  return account.phase ? `${account.phase.index + 1}: ${phaseName(account.phase)}` : '—';
}

/** "standard v1, phase 1: evaluation" (the list's one column for both). */
export function programAndPhase(account: Account): string {
  return account.phase ? `${programText(account)}, phase ${phaseText(account)}` : programText(account);
}
