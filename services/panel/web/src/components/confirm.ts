/**
 * Destructive actions ask first. The browser's own confirmation dialog: modal, keyboard-usable
 * and announced by screen readers without any code of ours.
 */
export function confirmed(question: string): boolean {
  return window.confirm(question);
}
