import { useSyncExternalStore } from 'react';

/**
 * Which partition the panel shows (SPEC 13): live or test. Every request to the panel API names
 * it (the X-PropDesk-Mode header, panel-api.ts) and every cached answer is keyed by it
 * (queryKeys), so one mode's data is never shown as the other's. Kept in localStorage: a reload,
 * or a link opened in another tab, shows the same partition.
 */
export type Mode = 'live' | 'test';

export const MODE_HEADER = 'x-propdesk-mode';
const STORAGE_KEY = 'propdesk.mode';

function stored(): Mode {
  try {
    return window.localStorage.getItem(STORAGE_KEY) === 'test' ? 'test' : 'live';
  } catch {
    return 'live';
  }
}

let current: Mode = stored();
const listeners = new Set<() => void>();

export function currentMode(): Mode {
  return current;
}

export function setMode(mode: Mode): void {
  if (mode === current) return;
  current = mode;
  try {
    window.localStorage.setItem(STORAGE_KEY, mode);
  } catch {
    // Private browsing without storage: the switch still holds for this page's life.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The mode, re-rendering the caller when the switch changes it. */
export function useMode(): Mode {
  return useSyncExternalStore(subscribe, currentMode);
}
