/**
 * The exit code of a process that cannot start with its configuration (EX_CONFIG of sysexits.h):
 * no restart can help it, so a supervisor (scripts/stack.mjs) stops instead of trying again.
 * A module of its own, importing nothing: telemetry/register.ts uses it before any library loads,
 * so that the instrumentations can hook them.
 */
export const EXIT_CONFIG = 78;
